// fiber::Process: one registered function run in a new job-backed process,
// with the methods of Python's multiprocessing.Process. The process is a
// worker started by a backend of the run (the configured one, or
// ProcessOptions.backend: a child process here, a container or a pod
// elsewhere) that runs the one call and exits. Also the helpers
// active_children, current_process and cpu_count.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "fiber/detail/seconds.hpp"
#include "fiber/resources.hpp"
#include "fiber/task.hpp"

namespace fiber {

struct ProcessOptions {
  /// Shown in logs and by name(); empty: the process's id.
  std::string name{};
  Resources resources{};
  /// The backend to start it with; empty: the configured one.
  std::string backend{};
};

/// A process of the run as current_process and active_children describe it.
struct ProcessInfo {
  std::string id;    // unique within the run, e.g. "w4"; "main" for the master
  std::string name;  // the master: "MainProcess"; a worker: its id
  long pid = 0;
};

namespace detail {
struct ProcessState;
}

/// Movable, not copyable. Destroying a Process that is still running
/// terminates it (a child must not outlive the object that can join it).
class Process {
 public:
  template <class R, class... A, class... Args>
  explicit Process(R (*fn)(A...), Args&&... args)
      : Process(ProcessOptions{}, fn, std::forward<Args>(args)...) {}
  template <class R, class... A, class... Args>
  Process(ProcessOptions options, R (*fn)(A...), Args&&... args)
      : Process(std::move(options),
                Call{detail::task_name(detail::key_of(fn), "fiber::Process"),
                     detail::encode_args(fn, std::forward<Args>(args)...)}) {}
  Process(ProcessOptions options, Call call);
  // Not a registered free function (a lambda, functor, std::function):
  // stops the build with advice.
  template <class F, class... Args>
    requires(!detail::kIsTaskPointer<F> && !std::is_same_v<std::decay_t<F>, Process> &&
             !std::is_same_v<std::decay_t<F>, ProcessOptions>)
  explicit Process(F&&, Args&&...) {
    detail::reject_closure<F>();
  }
  template <class F, class... Args>
    requires(!detail::kIsTaskPointer<F> && !std::is_same_v<std::decay_t<F>, Call>)
  Process(ProcessOptions, F&&, Args&&...) {
    detail::reject_closure<F>();
  }
  ~Process();
  Process(Process&&) noexcept;
  Process& operator=(Process&&) noexcept;

  /// Asks the backend for the process; at most once.
  void start();
  /// Waits until the process has ended.
  void join();
  /// Waits at most timeout; true when it has ended.
  bool join(std::chrono::milliseconds timeout);
  /// The same in seconds (0.1; an integer too); Error when negative or NaN.
  bool join(detail::Seconds auto seconds) { return join(detail::seconds_to_timeout(seconds, "Process::join")); }
  /// Started and not yet ended.
  bool is_alive() const;
  /// Empty before start and while it runs; then 0 when the function
  /// returned, 1 when it threw (its type and message are logged) or the
  /// process could not run it, minus the signal number when it was killed.
  std::optional<int> exitcode() const;
  /// Ends it now through its backend (SIGKILL for a local process, so the
  /// exit code is -9 either way: the backend has one way to end a worker).
  void terminate();
  void kill();

  /// Its id within the run ("w4"); empty before start.
  std::string id() const;
  /// options.name, else its id.
  std::string name() const;
  /// Its process id as it reported it once connected; 0 before.
  long pid() const;

 private:
  std::shared_ptr<detail::ProcessState> state_;
};

/// The Processes started by this process that have not ended yet.
std::vector<ProcessInfo> active_children();
/// This process: the master ("main") or a worker (its id).
ProcessInfo current_process();
/// The CPUs this process may run on.
int cpu_count();

}  // namespace fiber
