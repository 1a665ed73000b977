// The master's record of one pool's unfinished tasks: pending ones in
// dispatch order, leased ones with the worker that holds them, and how often
// each was lost. The one place a lease or a retry count is kept. Not
// thread-safe: owned by the I/O thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "fiber/detail/batch.hpp"
#include "wire/task_batch.hpp"

namespace fiber::master {

using Clock = std::chrono::steady_clock;

/// A chunk of calls of one function, sent to a worker as one message.
struct Task {
  std::string function;
  std::vector<std::string> calls;  // encoded argument tuples (or chunks of them)
  std::shared_ptr<detail::Batch> batch;
  std::size_t first = 0;  // slot of calls[0] in batch
  /// The items of the caller's call (map's) it runs: first_item and on.
  std::size_t first_item = 0, items = 0;
  wire::TaskForm form = wire::TaskForm::kCalls;
};

class TaskTable {
 public:
  /// A task may be lost with its worker max_retries times and run again.
  explicit TaskTable(int max_retries) : max_retries_(max_retries) {}

  std::uint64_t Add(Task task);
  bool HasPending() const { return !pending_.empty(); }
  /// Leases the first pending task to worker (at now) and returns its id.
  std::uint64_t LeaseNext(const std::string& worker, Clock::time_point now = {});
  const Task* Find(std::uint64_t id) const;
  /// How many calls task id makes, when worker holds it (what its result
  /// must answer); nullopt when worker does not hold it.
  std::optional<std::size_t> CallsHeldBy(std::uint64_t id, const std::string& worker) const;
  /// How many tasks worker holds.
  std::size_t Leases(const std::string& worker) const;
  /// The task worker runs, for reports: "boom (item 3)", "boom (items
  /// 3-5)"; of several it holds, any may be the one ("boom (item 2) or boom
  /// (item 3)": the result of the first can die unsent with the worker).
  /// Empty when it holds none.
  std::string Running(const std::string& worker) const;
  /// How many more times the tasks worker holds may be lost and run again
  /// (a loss now uses one): the fewest of any of them; 0 when losing it now
  /// fails one, max_retries when it holds none.
  int RetriesLeft(const std::string& worker) const;
  /// One task for reports: "boom (item 3)", "boom (items 3-5)".
  std::string Describe(std::uint64_t id) const;
  /// How many calls the tasks worker holds make.
  int CallsLeasedTo(const std::string& worker) const;
  /// The task worker runs (it runs them in the order dealt): the first it
  /// holds; 0 when it holds none.
  std::uint64_t Oldest(const std::string& worker) const;
  /// The tasks worker holds, in the order dealt.
  const std::vector<std::uint64_t>& LeasesOf(const std::string& worker) const;
  /// Takes task id back from worker, which skipped it as asked (work
  /// stealing), to the front of the queue; false when worker does not
  /// hold it.
  bool TakeBack(const std::string& worker, std::uint64_t id);

  /// A task finished by its holder's result, as the pool counts it.
  struct Finished {
    std::shared_ptr<detail::Batch> batch;  // whose caller the outcomes went to
    std::size_t items = 0;                 // of the caller's items
    Clock::time_point leased_at;
    bool done = false;  // every call has a value (not failed)
  };
  /// Delivers outcomes of task id, held by worker, to the waiting caller
  /// and forgets the task, in one look-up; nullopt (nothing delivered) when
  /// worker does not hold it.
  std::optional<Finished> Finish(std::uint64_t id, const std::string& worker,
                                 std::vector<detail::Outcome>&& outcomes);
  /// Worker was lost (why says how): each task it held goes back to the
  /// front of the queue, in order, or fails with WorkerLost once it has been
  /// lost more than max_retries times. Returns how many went back.
  std::size_t Lose(const std::string& worker, const std::string& why);
  /// Worker was stopped for a reason of the pool's (a task timeout): the
  /// tasks it holds go back to the front of the queue, in order, not
  /// counted as lost.
  void GiveBack(const std::string& worker);
  /// Finishes every task with the same failure for every call.
  void FailAll(const detail::Outcome& outcome);

  std::size_t size() const { return tasks_.size(); }
  std::size_t pending() const { return pending_.size(); }
  /// Tasks finished so far: every call with a value, or some call failed
  /// (an error raised, lost too often, the pool closed).
  std::size_t done() const { return done_; }
  std::size_t failed() const { return failed_; }

 private:
  struct Entry {
    Task task;
    std::string holder;  // empty while pending
    int losses = 0;
    Clock::time_point leased_at;
  };
  void Fail(Entry& entry, const detail::Outcome& outcome);
  /// Removes worker's leases, oldest first.
  std::vector<std::uint64_t> Unlease(const std::string& worker);

  int max_retries_;
  std::unordered_map<std::uint64_t, Entry> tasks_;
  std::deque<std::uint64_t> pending_;
  std::unordered_map<std::string, std::vector<std::uint64_t>> leases_;  // by holder
  std::uint64_t next_id_ = 1;
  std::size_t done_ = 0, failed_ = 0;
};

}  // namespace fiber::master
