// What became of the calls of one submission (detail::Outcome) and where
// they wait to be read (detail::Batch): the terms the run's master fills in
// and fiber::AsyncResult reads, in a header of their own so the master
// needs nothing else of the API.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "fiber/serialize.hpp"

namespace fiber::detail {

/// What became of one call.
struct Outcome {
  enum class Kind { kValue, kRemoteError, kWorkerLost, kNotRegistered, kPoolClosed, kTimeout };
  Kind kind = Kind::kValue;
  std::string data;        // the encoded value, or the error's message
  std::string error_type;  // kRemoteError: the type of the exception
};

/// Throws the fiber error an unsuccessful outcome stands for.
[[noreturn]] void throw_outcome(const Outcome& outcome);

using Deadline = std::optional<std::chrono::steady_clock::time_point>;

template <class Rep, class Period>
Deadline deadline_after(std::chrono::duration<Rep, Period> timeout) {
  return std::chrono::steady_clock::now() +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(timeout);
}

/// The outcomes of the calls of one submission, in submission order, plus
/// the order in which they completed. Filled once per slot by the I/O
/// thread; read by any number of user threads.
class Batch {
 public:
  explicit Batch(std::size_t size);
  std::size_t size() const { return slots_.size(); }

  /// Stores outcomes for slots [first, first + outcomes.size()). A slot that
  /// is already complete keeps its first outcome.
  void complete(std::size_t first, std::vector<Outcome>&& outcomes);

  /// Waits for slot i; false when the deadline passed first.
  bool wait_slot(std::size_t i, const Deadline& deadline = {});
  /// Waits for the k-th slot to complete (in completion order) and returns
  /// its index through *index; false when the deadline passed first.
  bool wait_completed(std::size_t k, std::size_t* index,
                      const Deadline& deadline = {});
  bool wait_all(const Deadline& deadline = {});
  bool ready() const;
  /// Runs fn once every slot is complete: now if they are, else on the
  /// thread that completes the last one. At most one per batch.
  void on_ready(std::function<void()> fn);

  /// What a thread does before it waits on the batch (manager calls send
  /// those held to go together, client/manager_links.hpp). Set before the
  /// batch is shared.
  void set_before_wait(std::function<void()> fn) { before_wait_ = std::move(fn); }

  /// Slot i; only after wait_slot(i) or wait_all() returned true.
  const Outcome& at(std::size_t i) const { return slots_[i]; }

 private:
  bool wait_for_condition(std::unique_lock<std::mutex>& lock,
                          const Deadline& deadline,
                          const std::function<bool()>& done);

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Outcome> slots_;
  std::vector<bool> done_;
  std::vector<std::size_t> completion_order_;
  std::function<void()> on_ready_;
  std::function<void()> before_wait_;
};

[[noreturn]] void throw_undecodable(const char* why);

template <class T>
T decode(const Outcome& outcome) {
  if (outcome.kind != Outcome::Kind::kValue) throw_outcome(outcome);
  if constexpr (!std::is_void_v<T>) {
    try {
      return from_bytes<T>(outcome.data);
    } catch (const cereal::Exception& e) {
      throw_undecodable(e.what());
    }
  }
}

}  // namespace fiber::detail
