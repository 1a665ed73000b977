// expect: a closure (a lambda, functor or std::function) cannot travel to another process
#include <fiber/fiber.hpp>

#include <functional>

int main() {
  fiber::Pool pool(2);
  std::function<int(int)> square = [](int x) { return x * x; };
  return pool.apply(square, 3) == 9 ? 0 : 1;
}
