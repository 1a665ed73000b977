// A Process is a pool of one job-backed worker that is never replaced: the
// master's PoolService already starts a worker through the backend, hands
// it one call, watches it and reports how it ended, so a Process is that
// pool given one call and closed at once. Its exit code comes from the
// call's outcome, or, when the process died, from the backend's exit report.
#include "fiber/process.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <set>
#include <thread>

#include "api/init_state.hpp"
#include "diagnostics/log.hpp"
#include "fiber/errors.hpp"
#include "master/pool_handle.hpp"
#include "master/run.hpp"
#include "os/mutex.hpp"
#include "worker/this_worker.hpp"

namespace fiber {

namespace detail {

struct ProcessState {
  ProcessOptions options;
  Call call;
  std::unique_ptr<master::PoolHandle> handle;  // user thread only
  std::shared_ptr<Batch> batch;

  mutable os::Mutex mu;
  std::condition_variable cv;
  std::string id FIBER_GUARDED_BY(mu);                  // set by the I/O thread as it starts
  long pid FIBER_GUARDED_BY(mu) = 0;                    // as it said in its HELLO
  std::optional<int> exit_status FIBER_GUARDED_BY(mu);  // as the backend reported it
  bool started FIBER_GUARDED_BY(mu) = false;
  bool ended FIBER_GUARDED_BY(mu) = false;
  std::optional<int> exitcode FIBER_GUARDED_BY(mu);
};

}  // namespace detail

namespace {

using detail::ProcessState;

// The Processes of this process that have started and not ended.
os::Mutex children_mu;
std::set<ProcessState*> children FIBER_GUARDED_BY(children_mu);

// What the call's outcome and the backend's report make of the process.
int ExitCodeOf(ProcessState& s) FIBER_REQUIRES(s.mu) {
  const std::string who = "process " + s.id + (s.options.name.empty() ? "" : " (" + s.options.name + ")");
  // A pool that broke before it took the call (no backend) never ran it.
  if (!s.batch->ready()) {
    log::Error(who + " could not be started");
    return 1;
  }
  const detail::Outcome& outcome = s.batch->at(0);
  switch (outcome.kind) {
    case detail::Outcome::Kind::kValue: return 0;
    case detail::Outcome::Kind::kRemoteError:
      log::Error(who + " raised " + outcome.error_type + ": " + outcome.data);
      return 1;
    case detail::Outcome::Kind::kNotRegistered: log::Error(who + ": " + outcome.data); return 1;
    case detail::Outcome::Kind::kWorkerLost:
    case detail::Outcome::Kind::kPoolClosed:
    case detail::Outcome::Kind::kTimeout: break;
  }
  if (s.exit_status && *s.exit_status != 0) return *s.exit_status;
  log::Error(who + " ended without running its function: " + outcome.data);
  return 1;
}

void MarkEnded(ProcessState& s) {
  {
    os::MutexLock lock(s.mu);
    s.ended = true;
    s.exitcode = ExitCodeOf(s);
  }
  s.cv.notify_all();
  os::MutexLock lock(children_mu);
  children.erase(&s);
}

}  // namespace

Process::Process(ProcessOptions options, Call call) : state_(std::make_shared<ProcessState>()) {
  state_->options = std::move(options);
  state_->call = std::move(call);
}

Process::~Process() {
  if (!state_) return;
  // The handle's destructor kills a worker still running and waits for it.
  state_->handle.reset();
  os::MutexLock lock(children_mu);
  children.erase(state_.get());
}

Process::Process(Process&&) noexcept = default;
Process& Process::operator=(Process&& other) noexcept {
  if (this != &other) {
    Process gone(std::move(*this));
    state_ = std::move(other.state_);
  }
  return *this;
}

void Process::start() {
  detail::RequireMaster("a Process");
  ProcessState& s = *state_;
  {
    os::MutexLock lock(s.mu);
    if (s.started) throw Error("Process::start: a process can be started only once");
    s.started = true;
  }
  {
    os::MutexLock lock(children_mu);
    children.insert(&s);
  }
  PoolOptions options;
  options.processes = 1;
  options.max_task_retries = 0;
  options.backend = s.options.backend;
  options.resources = s.options.resources;
  s.batch = std::make_shared<detail::Batch>(1);
  std::weak_ptr<ProcessState> weak = state_;
  s.handle = std::make_unique<master::PoolHandle>(
      master::Run::Get(), options, [weak](master::PoolService::Options* o) {
        o->replace_lost_workers = false;
        o->new_worker_id = [weak, make = o->new_worker_id] {
          std::string id = make();
          if (auto s = weak.lock()) {
            os::MutexLock lock(s->mu);
            s->id = id;
            s->cv.notify_all();
          }
          return id;
        };
        o->on_connected = [weak](const std::string&, long pid) {
          if (auto s = weak.lock()) {
            os::MutexLock lock(s->mu);
            s->pid = pid;
          }
        };
        o->on_exit = [weak](const backend::Exit& exit) {
          if (auto s = weak.lock()) {
            os::MutexLock lock(s->mu);
            s->exit_status = exit.status.as_signed();
          }
        };
        o->on_finished = [weak, finished = o->on_finished] {
          finished();
          if (auto s = weak.lock()) MarkEnded(*s);
        };
      });
  s.handle->Submit(s.call.function, {s.call.args}, 1, s.batch);
  s.handle->Close();
  // The I/O thread names the worker as it adds the pool: wait for that, so
  // id() and active_children() know it once start() has returned.
  os::MutexLock lock(s.mu);
  lock.Wait(s.cv, [&]() FIBER_REQUIRES(s.mu) { return !s.id.empty() || s.ended; });
}

void Process::join() {
  ProcessState& s = *state_;
  os::MutexLock lock(s.mu);
  if (!s.started) throw Error("Process::join: the process was not started");
  lock.Wait(s.cv, [&]() FIBER_REQUIRES(s.mu) { return s.ended; });
}

bool Process::join(std::chrono::milliseconds timeout) {
  ProcessState& s = *state_;
  os::MutexLock lock(s.mu);
  if (!s.started) throw Error("Process::join: the process was not started");
  return lock.WaitFor(s.cv, timeout, [&]() FIBER_REQUIRES(s.mu) { return s.ended; });
}

bool Process::is_alive() const {
  os::MutexLock lock(state_->mu);
  return state_->started && !state_->ended;
}

std::optional<int> Process::exitcode() const {
  os::MutexLock lock(state_->mu);
  return state_->exitcode;
}

void Process::terminate() {
  if (state_->handle) state_->handle->Terminate();
}

void Process::kill() { terminate(); }

std::string Process::id() const {
  os::MutexLock lock(state_->mu);
  return state_->id;
}

std::string Process::name() const {
  return state_->options.name.empty() ? id() : state_->options.name;
}

long Process::pid() const {
  os::MutexLock lock(state_->mu);
  return state_->pid;
}

std::vector<ProcessInfo> active_children() {
  // Held throughout: a Process leaves the set before its state is freed.
  os::MutexLock children_lock(children_mu);
  std::vector<ProcessInfo> out;
  for (ProcessState* s : children) {
    os::MutexLock lock(s->mu);
    if (!s->ended)
      out.push_back({s->id, s->options.name.empty() ? s->id : s->options.name, s->pid});
  }
  return out;
}

ProcessInfo current_process() {
  if (const worker::Bootstrap* b = worker::ThisWorker())
    return {b->worker_id, b->worker_id, static_cast<long>(::getpid())};
  return {"main", "MainProcess", static_cast<long>(::getpid())};
}

int cpu_count() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace fiber
