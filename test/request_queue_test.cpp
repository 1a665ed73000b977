// RequestQueue (backend/request_queue.hpp): a worker's requests run one at a
// time in the order posted, its next ahead of the others once the one
// before is done; never more at once than its threads; a request waiting
// can be dropped, one under way cannot; and the pace holds a second request
// back while the first is long done, unless posted for a time of its own.
#include "backend/request_queue.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

using fiber::backend::RequestQueue;

namespace {

// Requests that record what ran, and wait for the test to let them end.
class Script {
 public:
  RequestQueue::Request Step(const std::string& name, bool held = false) {
    return [this, name, held] {
      std::unique_lock<std::mutex> lock(mu_);
      ran_.push_back(name);
      max_running_ = std::max(max_running_, ++running_);
      changed_.notify_all();
      changed_.wait(lock, [&] { return !held || released_.count(name); });
      --running_;
    };
  }
  void Release(const std::string& name) {
    std::lock_guard<std::mutex> lock(mu_);
    released_.insert(name);
    changed_.notify_all();
  }
  // Waits until n requests ran (started).
  void WaitRan(std::size_t n) {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait(lock, [&] { return ran_.size() >= n; });
  }
  std::vector<std::string> ran() {
    std::lock_guard<std::mutex> lock(mu_);
    return ran_;
  }
  int max_running() {
    std::lock_guard<std::mutex> lock(mu_);
    return max_running_;
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  std::vector<std::string> ran_;
  std::set<std::string> released_;
  int running_ = 0, max_running_ = 0;
};

const auto kLong = std::chrono::minutes(5);

}  // namespace

TEST_CASE("a worker's requests run in the order posted, its next ahead of those posted meanwhile") {
  Script script;
  RequestQueue queue(1, {}, "testing");
  queue.Post("w1", script.Step("w1 create", true));
  script.WaitRan(1);
  queue.Post("w2", script.Step("w2 create"));
  queue.Post("w3", script.Step("w3 create"));
  queue.Post("w1", script.Step("w1 delete"));
  CHECK(queue.Busy("w1"));
  script.Release("w1 create");
  REQUIRE(queue.WaitIdle(RequestQueue::Clock::now() + kLong));
  CHECK(script.ran() == std::vector<std::string>{"w1 create", "w1 delete", "w2 create", "w3 create"});
  CHECK_FALSE(queue.Busy("w1"));
}

TEST_CASE("no more requests run at once than the queue has threads, nor two of one worker") {
  Script script;
  RequestQueue queue(2, {}, "testing");
  std::vector<std::string> names;
  for (int w = 0; w < 4; ++w)
    for (int step = 0; step < 2; ++step) {
      const std::string name = "w" + std::to_string(w) + " step " + std::to_string(step);
      names.push_back(name);
      queue.Post("w" + std::to_string(w), script.Step(name, true));
    }
  script.WaitRan(2);
  for (const std::string& name : names) script.Release(name);
  REQUIRE(queue.WaitIdle(RequestQueue::Clock::now() + kLong));
  CHECK(script.max_running() == 2);
  std::map<std::string, std::vector<std::string>> by_worker;
  for (const std::string& name : script.ran()) by_worker[name.substr(0, 2)].push_back(name);
  REQUIRE(by_worker.size() == 4);
  for (const auto& [worker, ran] : by_worker)
    CHECK(ran == std::vector<std::string>{worker + " step 0", worker + " step 1"});
}

TEST_CASE("a waiting request can be dropped, one under way cannot") {
  Script script;
  RequestQueue queue(1, {}, "testing");
  queue.Post("w1", script.Step("w1 create", true));
  queue.Post("w2", script.Step("w2 create"));
  script.WaitRan(1);
  CHECK(queue.Drop("w2"));
  CHECK_FALSE(queue.Busy("w2"));
  CHECK_FALSE(queue.Drop("w1"));  // under way
  CHECK_FALSE(queue.Drop("w9"));  // never posted
  script.Release("w1 create");
  REQUIRE(queue.WaitIdle(RequestQueue::Clock::now() + kLong));
  CHECK(script.ran() == std::vector<std::string>{"w1 create"});
}

TEST_CASE("the pace holds the next request back after one is done; stopping drops it") {
  Script script;
  {
    RequestQueue queue(2, std::chrono::hours(1), "testing");
    queue.Post("w1", script.Step("w1 create"));
    queue.Post("w2", script.Step("w2 create"));
    script.WaitRan(1);
    // The first is done at once; the second waits an hour for its turn.
    CHECK_FALSE(queue.WaitIdle(RequestQueue::Clock::now() + std::chrono::milliseconds(200)));
    CHECK(queue.Busy("w2"));
  }
  CHECK(script.ran() == std::vector<std::string>{"w1 create"});
}

TEST_CASE("a request posted for a time of its own minds it, not the pace") {
  Script script;
  RequestQueue queue(1, std::chrono::hours(1), "testing");
  queue.Post("arrays", script.Step("first"));
  script.WaitRan(1);
  // At once, though the pace would hold it an hour.
  queue.Post("arrays", script.Step("at once"), {false, {}});
  script.WaitRan(2);
  // At its time, an hour away: it waits, and stopping drops it.
  queue.Post("arrays", script.Step("later"), {false, RequestQueue::Clock::now() + std::chrono::hours(1)});
  CHECK_FALSE(queue.WaitIdle(RequestQueue::Clock::now() + std::chrono::milliseconds(200)));
  queue.Stop();
  CHECK(script.ran() == std::vector<std::string>{"first", "at once"});
}

TEST_CASE("a request that throws is said, and the queue serves the next") {
  Script script;
  RequestQueue queue(1, {}, "testing");
  queue.Post("w1", [] { throw std::runtime_error("an answer nobody expected"); });
  queue.Post("w1", script.Step("w1 next"));
  REQUIRE(queue.WaitIdle(RequestQueue::Clock::now() + kLong));
  CHECK(script.ran() == std::vector<std::string>{"w1 next"});
}
