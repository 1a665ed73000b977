#include "worker/result_batch.hpp"

#include <algorithm>
#include <cmath>

#include "diagnostics/hop_trace.hpp"
#include "wire/limits.hpp"
#include "wire/task_batch.hpp"

namespace fiber::worker {

namespace {

// Results wait to share a message only while the work done since the last
// send is shorter than this.
constexpr auto kBatchWork = std::chrono::microseconds(200);
// A worker asks for about this much work ahead, and never fewer tasks than
// the prefetch setting nor more than wire::kMaxCredit.
constexpr double kWorkAheadSeconds = 0.002;

}  // namespace

void ResultBatch::Welcome(const wire::Welcome& welcome) {
  channel_ = welcome.channel;
  prefetch_ = welcome.prefetch;
  at_once_ = welcome.results_at_once;
}

wire::Writer& ResultBatch::AddResult(std::uint64_t task, std::uint32_t calls) {
  if (!results_) {
    results_.emplace(wire::Type::kResult, channel_);
    results_->U32(Credit());
  }
  wire::AppendResultHead(*results_, task, calls);
  return *results_;
}

void ResultBatch::Ran(std::chrono::steady_clock::duration took) {
  work_since_take_ += took;
  const double seconds = std::chrono::duration<double>(took).count();
  task_seconds_ = task_seconds_ < 0 ? seconds : 0.8 * task_seconds_ + 0.2 * seconds;
}

bool ResultBatch::Due() const {
  return results_ && (at_once_ || work_since_take_ >= kBatchWork ||
                      results_->size() >= wire::kMaxResultBatchBytes);
}

std::optional<zmq::message_t> ResultBatch::Take() {
  if (!results_) return std::nullopt;
  FIBER_HOP("w-result-out");
  std::optional<zmq::message_t> message = results_->Finish();
  results_.reset();
  work_since_take_ = std::chrono::steady_clock::duration::zero();
  return message;
}

zmq::message_t ResultBatch::Skipped(const std::vector<std::uint64_t>& tasks) const {
  wire::Writer skipped(wire::Type::kResult, channel_);
  skipped.U32(Credit());
  for (std::uint64_t task : tasks) wire::AppendResultHead(skipped, task, 0);
  return skipped.Finish();
}

// How many tasks to hold: about kWorkAheadSeconds of them by the recent
// mean task time, from the prefetch (at most kMaxCredit, as WELCOME
// guarantees) up to kMaxCredit.
std::uint32_t ResultBatch::Credit() const {
  if (task_seconds_ <= 0) return prefetch_;
  const double ahead = std::ceil(kWorkAheadSeconds / task_seconds_);
  return static_cast<std::uint32_t>(
      std::clamp(ahead, static_cast<double>(prefetch_), static_cast<double>(wire::kMaxCredit)));
}

}  // namespace fiber::worker
