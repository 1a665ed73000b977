#include "same_named.hpp"

static int work(int x) { return x + 2000; }
FIBER_TASK(work);

namespace {
class Env {
 public:
  explicit Env(int seed) : seed_(seed) {}
  int value() const { return seed_ + 200; }

 private:
  int seed_;
};
}  // namespace
FIBER_CLASS(Env, &Env::value);

std::vector<int> MapOtherWork(fiber::Pool& pool, const std::vector<int>& items) {
  return pool.map(work, items);
}

int OtherEnvValue(fiber::Manager& manager) {
  return manager.make<Env>(1).call(&Env::value).get();
}
