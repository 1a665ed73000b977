// The results a worker sent that the program has not taken are charged to
// that worker (master/pool_service.hpp, Options::budget): a worker holding
// all its bytes is dealt no more while another is within its own, and is dealt
// again once the program drops them; none is refused or lost. Driven
// deterministically: scripted workers, a recorded outbox, a test's clock.
#include <doctest/doctest.h>

#include <string>

#include "master/peer_budget.hpp"
#include "support/pool_harness.hpp"
#include "wire/codec.hpp"

using fiber::master::PeerBudget;
using fiber::testing::PoolHarness;
using std::chrono::milliseconds;

namespace {

constexpr std::size_t kEach = fiber::wire::kHeldOverheadBytes;
constexpr std::size_t kBudget = 1000;

// A pool of processes whose workers may have the master hold kBudget bytes.
struct ChargedPool {
  explicit ChargedPool(int processes) : h(Options(processes, budget)) {}
  static fiber::master::PoolService::Options Options(int processes,
                                                     const std::shared_ptr<PeerBudget>& budget) {
    fiber::master::PoolService::Options o;
    o.processes = processes;
    o.budget = budget;
    return o;
  }
  // RESULT for task: one value of these bytes.
  void Answer(const std::string& id, std::uint64_t task, const std::string& bytes) {
    fiber::wire::Writer w(fiber::wire::Type::kResult, PoolHarness::kChannel);
    w.U32(1);
    fiber::wire::AppendResultHead(w, task, 1);
    fiber::wire::AppendOutcome(w, {fiber::wire::OutcomeKind::kValue, bytes, {}});
    h.Deliver(id, w.Finish());
  }
  std::size_t Held(const std::string& id) const { return budget->Of(id).bytes; }

  std::shared_ptr<PeerBudget> budget = PeerBudget::Make({.bytes = kBudget});
  PoolHarness h;
};

std::string Square(int x) { return fiber::detail::to_bytes(x * x); }

}  // namespace

TEST_CASE("a result the program has not taken is charged to its worker until the program drops it") {
  ChargedPool p(1);
  p.h.Connect("w0");
  auto batch = p.h.SubmitSquares(1);
  p.Answer("w0", 1, std::string(300, 'r'));
  REQUIRE(batch->ready());
  CHECK(p.Held("w0") == 300 + kEach);
  batch.reset();  // the program is done with it
  p.h.Advance(milliseconds(100));
  CHECK(p.Held("w0") == 0);
}

TEST_CASE("a worker holding all its bytes in results is dealt no more while another is within, and again once they are taken") {
  ChargedPool p(2);
  p.h.Connect("w0");
  p.h.Connect("w1");
  auto big = p.h.SubmitSquares(1);
  REQUIRE(p.h.outbox.TaskIds("w0") == std::vector<std::uint64_t>{1});
  p.Answer("w0", 1, std::string(kBudget - kEach, 'r'));  // all its budget
  CHECK(p.Held("w0") == kBudget);

  auto batch = p.h.SubmitSquares(4);  // tasks 2-5, one at a time (credit 1)
  for (std::uint64_t task = 2; task <= 4; ++task) {
    REQUIRE(p.h.outbox.TaskIds("w1").back() == task);
    p.Answer("w1", task, Square(static_cast<int>(task - 2)));
  }
  CHECK(p.h.outbox.TaskIds("w0") == std::vector<std::uint64_t>{1});  // w1 took each
  CHECK(p.h.outbox.TaskIds("w1") == std::vector<std::uint64_t>{2, 3, 4, 5});

  big.reset();
  p.h.Advance(milliseconds(100));
  CHECK(p.Held("w0") == 0);
  auto more = p.h.SubmitSquares(1);  // task 6: w1 holds 5, so w0 is dealt again
  CHECK(p.h.outbox.TaskIds("w0") == std::vector<std::uint64_t>{1, 6});
  p.Answer("w1", 5, Square(3));
  p.Answer("w0", 6, Square(0));
  REQUIRE(batch->ready());
  REQUIRE(more->ready());
  for (std::size_t i = 0; i < 4; ++i) CHECK(PoolHarness::Slot(*batch, i) == std::to_string(i * i));
  CHECK(PoolHarness::Slot(*more, 0) == "0");
  CHECK(p.h.pool->status().tasks_done == 6);  // each once, none refused or lost
}

TEST_CASE("a pool whose every worker holds all its bytes in results deals on, so a program waiting for them all ends") {
  ChargedPool p(1);
  p.h.Connect("w0");
  auto batch = p.h.SubmitSquares(3);
  for (std::uint64_t task = 1; task <= 3; ++task) {
    REQUIRE(p.h.outbox.TaskIds("w0").back() == task);
    p.Answer("w0", task, std::string(kBudget - kEach, 'r'));
  }
  CHECK(batch->ready());
  CHECK(p.Held("w0") == 3 * kBudget);
}

TEST_CASE("a result larger than a worker's whole budget is kept and charged; its worker waits until it is taken") {
  ChargedPool p(2);
  p.h.Connect("w0");
  p.h.Connect("w1");
  auto big = p.h.SubmitSquares(1);
  REQUIRE(p.h.outbox.TaskIds("w0") == std::vector<std::uint64_t>{1});
  const std::string large(kBudget + 1, 'r');
  p.Answer("w0", 1, large);
  REQUIRE(big->ready());
  CHECK(p.h.pool->status().tasks_failed == 0);  // kept: the program asked for it
  CHECK(p.h.pool->status().tasks_done == 1);
  CHECK(p.Held("w0") == large.size() + kEach);
  auto batch = p.h.SubmitSquares(2);  // tasks 2 and 3: w1's, one at a time
  for (std::uint64_t task = 2; task <= 3; ++task) {
    REQUIRE(p.h.outbox.TaskIds("w1").back() == task);
    p.Answer("w1", task, Square(static_cast<int>(task - 2)));
  }
  CHECK(p.h.outbox.TaskIds("w0") == std::vector<std::uint64_t>{1});
  REQUIRE(batch->ready());
  CHECK(p.h.pool->status().tasks_failed == 0);
  CHECK(p.h.pool->status().tasks_done == 3);
}
