// expect: map calls a function of one argument; for a function of several, use starmap with a vector of tuples
#include <fiber/fiber.hpp>

int add(int a, int b) { return a + b; }
FIBER_TASK(add);

int main() {
  fiber::Pool pool(2);
  return pool.map(add, std::vector<int>{1, 2}).size() == 2 ? 0 : 1;
}
