// expect: a closure (a lambda, functor or std::function) cannot travel to another process
#include <fiber/fiber.hpp>

struct Work {
  void operator()(int) const {}
};

int main() {
  fiber::Process p(Work{}, 1);
  p.start();
  p.join();
}
