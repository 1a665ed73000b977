#include "../same_named.hpp"

static int work(int x) { return x + 3000; }
FIBER_TASK(work);

std::vector<int> MapWorkOfA(fiber::Pool& pool, const std::vector<int>& items) {
  return pool.map(work, items);
}
