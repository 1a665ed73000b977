// The requests a backend makes of its engine about its workers (create a
// pod, create and start a container, delete one), made on a few threads of
// its own so that the master's I/O thread hands them over and goes on:
// Backend::Start accepts, and what became of a start comes back through
// Poll. Requests about one worker run one at a time in the order posted,
// and the next goes ahead of the others once the one before it is done (a
// pod deleted while it is being created is deleted as soon as it exists);
// at most `threads` run at once, each started at least `pace` after the
// one before (a polite client of a shared engine), unless posted to start
// at a time of its own. Used by the pod requests
// (kubernetes/pod_requests.hpp), the container backend and the Slurm array
// submitter. Thread-safe.
#pragma once

#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "os/loop_thread.hpp"
#include "os/mutex.hpp"

namespace fiber::backend {

class RequestQueue {
 public:
  using Clock = std::chrono::steady_clock;
  using Request = std::function<void()>;

  /// what names the requests in the warning of one that failed for want of
  /// memory or an unexpected answer ("making the run's pods").
  RequestQueue(int threads, Clock::duration pace, std::string what);
  /// Stop.
  ~RequestQueue() { Stop(); }
  RequestQueue(const RequestQueue&) = delete;
  RequestQueue& operator=(const RequestQueue&) = delete;

  /// When a request may start: `pace` after the one before, or at `at`
  /// (the pace not minded; the clock's epoch for at once).
  struct When {
    bool paced = true;
    Clock::time_point at{};
  };
  /// Queues request about worker_id, after those about it already posted.
  /// Whichever request is next in turn waits for its time, the others
  /// behind it.
  void Post(const std::string& worker_id, Request request, When when);
  /// Post, paced.
  void Post(const std::string& worker_id, Request request);
  /// Drops the requests about worker_id that wait (not one under way);
  /// whether there were any.
  bool Drop(const std::string& worker_id);
  /// Whether a request about worker_id waits or is under way.
  bool Busy(const std::string& worker_id) const;
  /// Waits until no request waits or is under way; false when the deadline
  /// came first.
  [[nodiscard]] bool WaitIdle(Clock::time_point deadline);
  /// Drops the requests that wait, waits for those under way, and runs no
  /// more.
  void Stop();

 private:
  void Serve();

  const Clock::duration pace_;
  const std::string what_;
  std::map<std::string, std::deque<std::pair<Request, When>>> waiting_ FIBER_GUARDED_BY(loop_.mu());  // by worker
  std::deque<std::string> ready_ FIBER_GUARDED_BY(loop_.mu());  // workers whose next request may run, in turn
  std::set<std::string> running_ FIBER_GUARDED_BY(loop_.mu());  // workers with a request under way
  Clock::time_point next_start_ FIBER_GUARDED_BY(loop_.mu()){};  // the pace's
  os::LoopThread loop_;
};

}  // namespace fiber::backend
