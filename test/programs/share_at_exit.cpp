// A master that shares a value, then tries again from an exit handler that
// runs once the run has ended: it prints that attempt's error ("at exit:
// ..."). shared_test runs it.
#include <fiber/fiber.hpp>

#include <cstdio>
#include <cstdlib>

// Registered before the run is made, so it runs after the run is destroyed.
void share_at_exit() {
  try {
    (void)fiber::share(2);
    std::printf("at exit: shared\n");
  } catch (const fiber::Error& e) {
    std::printf("at exit: %s\n", e.what());
  }
  std::fflush(stdout);
}

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  std::atexit(share_at_exit);
  const auto one = fiber::share(1);
  std::printf("shared %d\n", one.get());
  return 0;
}
