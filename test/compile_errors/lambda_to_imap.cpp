// expect: a closure (a lambda, functor or std::function) cannot travel to another process
#include <fiber/fiber.hpp>

int main() {
  fiber::Pool pool(2);
  int offset = 1;
  for (int y : pool.imap([offset](int x) { return x + offset; }, {1, 2, 3})) (void)y;
}
