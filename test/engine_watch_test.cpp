// The one watch every engine's watch is (backend/engine_watch.hpp), driven
// by a scripted engine: each step takes the next answer the test gives and
// blocks on the engine until then, so every case runs step by step, with no
// engine and no clock.
#include "backend/engine_watch.hpp"

#include <doctest/doctest.h>

#include <deque>
#include <stdexcept>
#include <vector>

using fiber::backend::EngineWatch;
using fiber::backend::WatchPace;
using Events = std::vector<int>;
using Watch = EngineWatch<Events>;

namespace {

constexpr auto kLong = std::chrono::seconds(60);  // a limit only a broken watch reaches

// What the engine answers one step.
struct Answer {
  enum Kind { kEvents, kFailure, kThrow } kind;
  Events events;      // kEvents: heard, then the step ends as a stream would
  std::string error;  // kFailure: why; kThrow: what
};

class ScriptedEngine {
 public:
  /// The watch's step.
  bool Step(Watch& watch, std::string* err) {
    std::unique_lock<std::mutex> lock(mu_);
    ++steps_;
    changed_.notify_all();
    // Blocked on the engine, as a client is, until an answer or the cancel
    // flag (which a client polls).
    while (answers_.empty()) {
      if (watch.stopping()) return false;
      changed_.wait_for(lock, std::chrono::milliseconds(5));
    }
    const Answer answer = answers_.front();
    answers_.pop_front();
    lock.unlock();
    if (answer.kind == Answer::kThrow) throw std::runtime_error(answer.error);
    if (answer.kind == Answer::kFailure) {
      *err = answer.error;
      return false;
    }
    for (int e : answer.events) watch.Heard([&](Events& heard) { heard.push_back(e); });
    return true;
  }
  void Give(Answer answer) {
    std::lock_guard<std::mutex> lock(mu_);
    answers_.push_back(std::move(answer));
    changed_.notify_all();
  }
  /// Waits until the watch has started its nth step (and so ended the one before).
  void WaitForStep(int n) {
    std::unique_lock<std::mutex> lock(mu_);
    REQUIRE(changed_.wait_for(lock, kLong, [&] { return steps_ >= n; }));
  }
  int steps() {
    std::lock_guard<std::mutex> lock(mu_);
    return steps_;
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<Answer> answers_;
  int steps_ = 0;
};

Watch::Step StepOf(ScriptedEngine& engine) {
  return [&engine](Watch& watch, std::string* err) { return engine.Step(watch, err); };
}

}  // namespace

TEST_CASE("a failing engine is asked again, its error said until it answers, and what it said kept") {
  ScriptedEngine engine;
  Watch watch(StepOf(engine), WatchPace{{}, {}});
  for (int i = 0; i < 3; ++i) engine.Give({Answer::kFailure, {}, "no engine at the socket"});
  engine.WaitForStep(4);
  CHECK(watch.error() == "no engine at the socket");
  CHECK(watch.snapshot().empty());

  engine.Give({Answer::kEvents, {1, 2}, ""});
  REQUIRE(watch.Wait(kLong, [](const Events& heard, const std::string&) { return heard.size() == 2; }));
  CHECK(watch.error().empty());

  // A stream that breaks later: said again, and what was heard stays.
  engine.Give({Answer::kFailure, {}, "the engine ended its event stream"});
  REQUIRE(watch.Wait(kLong, [](const Events&, const std::string& error) { return !error.empty(); }));
  CHECK(watch.error() == "the engine ended its event stream");
  CHECK(watch.snapshot() == Events{1, 2});
  engine.Give({Answer::kEvents, {3}, ""});
  REQUIRE(watch.Wait(kLong, [](const Events& heard, const std::string&) { return heard.size() == 3; }));
  CHECK(watch.error().empty());
}

TEST_CASE("a watch goes at once while its step is blocked on the engine") {
  ScriptedEngine engine;
  {
    Watch watch(StepOf(engine), WatchPace{});
    engine.WaitForStep(1);
  }
  CHECK(engine.steps() == 1);
}

TEST_CASE("a watch goes at once in its pause between two steps") {
  ScriptedEngine engine;
  {
    // Hours apart: a watch that waited out its pace would hang the test.
    Watch watch(StepOf(engine), WatchPace{std::chrono::hours(1), std::chrono::hours(1)});
    engine.Give({Answer::kEvents, {1}, ""});
    REQUIRE(watch.Wait(kLong, [](const Events& heard, const std::string&) { return !heard.empty(); }));
    engine.Give({Answer::kFailure, {}, "not asked"});
  }
  CHECK(engine.steps() == 1);
}

TEST_CASE("an exception escaping a step is the watch's error for good, not the program's end") {
  ScriptedEngine engine;
  {
    Watch watch(StepOf(engine), WatchPace{{}, {}}, "an internal error watching the run's jobs");
    engine.Give({Answer::kThrow, {}, "an answer fiber did not expect"});
    REQUIRE(watch.Wait(kLong, [](const Events&, const std::string& error) { return !error.empty(); }));
    CHECK(watch.error() ==
          "an internal error watching the run's jobs (std::runtime_error: an answer fiber did not expect)");
    engine.Give({Answer::kEvents, {1}, ""});
  }
  CHECK(engine.steps() == 1);
}

TEST_CASE("the owner changes what the watch holds, and a wait with no news says so") {
  ScriptedEngine engine;
  Watch watch(StepOf(engine), WatchPace{});
  engine.Give({Answer::kEvents, {1, 2}, ""});
  REQUIRE(watch.Wait(kLong, [](const Events& heard, const std::string&) { return heard.size() == 2; }));
  watch.Change([](Events& heard) { heard.erase(heard.begin()); });
  CHECK(watch.Read([](const Events& heard, const std::string&) { return heard; }) == Events{2});
  CHECK_FALSE(watch.Wait(std::chrono::milliseconds(0), [](const Events& heard, const std::string&) {
    return heard.size() == 2;
  }));
}

TEST_CASE("the pace relaxes while nothing changes, within its floor and ceiling, and news brings it back") {
  using std::chrono::seconds;
  const WatchPace pace{seconds(1), seconds(1), seconds(10)};
  auto wait = fiber::backend::NextWait(pace, seconds(1), true);
  CHECK(wait == seconds(2));
  wait = fiber::backend::NextWait(pace, wait, true);
  CHECK(wait == seconds(4));
  for (int i = 0; i < 5; ++i) wait = fiber::backend::NextWait(pace, wait, true);
  CHECK(wait == seconds(10));
  CHECK(fiber::backend::NextWait(pace, wait, false) == seconds(1));
  // A pace without a ceiling above its floor never relaxes.
  const WatchPace steady{seconds(1), seconds(1)};
  CHECK(fiber::backend::NextWait(steady, seconds(1), true) == seconds(1));
}
