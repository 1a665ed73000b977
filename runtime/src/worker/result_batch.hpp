// The RESULT message a worker fills as it runs tasks, and the credit it
// carries: results of short tasks share a message, and the worker asks for
// about 2 ms of work at a time so it never idles waiting for a round trip.
// Filled and sent by the serve loop (worker/serve_loop.hpp); not
// thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>
#include <zmq.hpp>

#include "wire/codec.hpp"
#include "wire/message.hpp"

namespace fiber::worker {

class ResultBatch {
 public:
  /// Takes the terms WELCOME set: the channel, the least credit (the
  /// prefetch), and whether each result goes as its task ends.
  void Welcome(const wire::Welcome& welcome);
  /// Adds the head of one task's result, with calls outcomes to follow on
  /// the writer it returns (0: revoked, the task did not run here).
  wire::Writer& AddResult(std::uint64_t task, std::uint32_t calls);
  /// Counts a task that ran for took: in the mean run time the credit
  /// follows, and in the work done since the last send.
  void Ran(std::chrono::steady_clock::duration took);
  /// Whether it should go now rather than wait for more results.
  bool Due() const;
  /// The finished RESULT, emptying the batch; nullopt when it holds none.
  std::optional<zmq::message_t> Take();
  /// A RESULT of its own answering tasks skipped as asked (REVOKE), each
  /// with no outcome, to go at once: the batch being filled stays as it is.
  zmq::message_t Skipped(const std::vector<std::uint64_t>& tasks) const;

 private:
  std::uint32_t Credit() const;

  std::optional<wire::Writer> results_;  // RESULT being filled
  std::chrono::steady_clock::duration work_since_take_{};
  double task_seconds_ = -1;  // mean run time of recent tasks; < 0: none yet
  wire::Channel channel_ = wire::kRunChannel;
  std::uint32_t prefetch_ = 1;
  bool at_once_ = false;
};

}  // namespace fiber::worker
