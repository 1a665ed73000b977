// A manager on one host called from a Pool task on another
// (test/slurm_hosts_test.cpp). Prints "manager HOST" and "caller HOST",
// then, with "calls", each result of 50 calls the task made at once, in
// the order it made them; with "lost", once the caller's call is in
// flight (the test then stops the manager's host), how many of it and a
// call after it failed with WorkerLost: "lost N".
#include <fiber/fiber.hpp>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "../support/lost_calls.hpp"

namespace {

std::string HostName() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  return name;
}

class Counter {
 public:
  int add(int n) { return total_ += n; }
  std::string host() const { return HostName(); }
  int slow(int ms) {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    return ms;
  }

 private:
  int total_ = 0;
};
FIBER_CLASS(Counter, &Counter::add, &Counter::host, &Counter::slow);

// "caller HOST", then the results of n calls made at once, one a line.
std::string add_many(fiber::RemoteObject<Counter> c, int n) {
  std::vector<fiber::AsyncResult<int>> pending;
  for (int i = 0; i < n; ++i) pending.push_back(c.call(&Counter::add, 1));
  std::string out = "caller " + HostName() + "\n";
  for (auto& r : pending) out += std::to_string(r.get()) + "\n";
  return out;
}
FIBER_TASK(add_many);

// Puts this host's name once a call is in flight on a link made already;
// "lost N": how many of that call and one after it failed with WorkerLost.
std::string calls_lost(fiber::RemoteObject<Counter> c, fiber::Queue<std::string> started) {
  c.call(&Counter::add, 0).get();
  auto pending = c.call(&Counter::slow, 600000);
  started.put(HostName());
  const int lost =
      fiber::testing::LostCalls({[&] { pending.get(); }, [&] { c.call(&Counter::add, 1).get(); }});
  return "lost " + std::to_string(lost);
}
FIBER_TASK(calls_lost);

}  // namespace

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  const std::string mode = argc > 1 ? argv[1] : "calls";
  fiber::Manager m;
  auto c = m.make<Counter>();
  std::printf("manager %s\n", c.call(&Counter::host).get().c_str());
  std::fflush(stdout);
  fiber::Pool pool(1);
  if (mode == "calls") {
    std::printf("%s", pool.apply(add_many, c, 50).c_str());
  } else {
    fiber::Queue<std::string> started;
    auto lost = pool.apply_async(calls_lost, c, started);
    std::printf("caller %s\n", started.get().c_str());
    std::fflush(stdout);
    std::printf("%s\n", lost.get().c_str());
  }
}
