// Entry point of every test executable. Pool tests start workers by running
// the test executable again, so fiber::init must come before doctest.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <fiber/fiber.hpp>

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  doctest::Context context(argc, argv);
  return context.run();
}
