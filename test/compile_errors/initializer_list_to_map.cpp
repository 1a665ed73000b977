// expect: compiles
#include <fiber/fiber.hpp>

int square(int x) { return x * x; }
FIBER_TASK(square);

int main() {
  fiber::Pool pool(2);
  auto squares = pool.map(square, {1, 2, 3});
  auto async = pool.map_async(square, {4, 5});
  for (int y : pool.imap(square, {6})) (void)y;
  for (int y : pool.imap_unordered(square, {7})) (void)y;
  return squares.size() + async.get().size() == 5 ? 0 : 1;
}
