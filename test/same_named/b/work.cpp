#include "../same_named.hpp"

static int work(int x) { return x + 4000; }
FIBER_TASK(work);

std::vector<int> MapWorkOfB(fiber::Pool& pool, const std::vector<int>& items) {
  return pool.map(work, items);
}
