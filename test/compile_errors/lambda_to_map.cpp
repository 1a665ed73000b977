// expect: a closure (a lambda, functor or std::function) cannot travel to another process
#include <fiber/fiber.hpp>

int main() {
  fiber::Pool pool(2);
  auto squares = pool.map([](int x) { return x * x; }, std::vector<int>{1, 2, 3});
  return squares.empty();
}
