#include "worker/serve_loop.hpp"

#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "diagnostics/log.hpp"
#include "fiber/task.hpp"
#include "os/background_thread.hpp"
#include "os/mutex.hpp"
#include "os/wake_fd.hpp"
#include "wire/codec.hpp"
#include "wire/credentials.hpp"
#include "wire/frames.hpp"
#include "wire/keepalive.hpp"
#include "wire/task_batch.hpp"
#include "worker/call_outcome.hpp"
#include "worker/direct_calls.hpp"
#include "worker/master_watch.hpp"
#include "worker/result_batch.hpp"
#include "worker/task_queue.hpp"

namespace fiber::worker {

using Clock = std::chrono::steady_clock;

using wire::OutcomeKind;
using wire::Type;

namespace {

[[noreturn]] void Die(int status, const std::string& why) {
  log::Error(why);
  ::_exit(status);
}

class ServeLoop;
// The loop serving on this thread, for ServeDirectCalls.
thread_local ServeLoop* this_thread_loop = nullptr;

class ServeLoop {
 public:
  ServeLoop(const Bootstrap& b, AfterCall after_call)
      : b_(b),
        after_call_(after_call),
        context_(1),
        dealer_(context_, zmq::socket_type::dealer),
        watch_(context_, dealer_, b.master, b.start_timeout) {
    dealer_.set(zmq::sockopt::routing_id, b.worker_id);
    dealer_.set(zmq::sockopt::linger, 2000);
    wire::LimitFrames(dealer_);
    // libzmq answers the master's PINGs and, by the TTL they carry, closes
    // the connection to a master that stopped sending them, even while a
    // long task keeps this thread busy; the watch then ends the process.
    wire::KeepAliveWorker(dealer_, b.heartbeat_timeout);
    wire::MakeCurveClient(dealer_, b.client_secret);
    dealer_.connect(b.master);
    master_fd_ = dealer_.get(zmq::sockopt::fd);
    this_thread_loop = this;
    std::string err;
    if (!stop_watch_.Open(&err)) Die(kInternalError, "cannot watch for REVOKE: " + err);
    watch_revokes_ = StartBackgroundThread([this] { WatchRevokes(); }, [](const std::string& what) {
      Die(kInternalError, "internal error watching for REVOKE (" + what + "); exiting");
    });
  }
  ~ServeLoop() {
    stopping_ = true;
    stop_watch_.Wake();
    watch_revokes_.join();
    this_thread_loop = nullptr;
  }

  // Listens for direct calls of function, once; the endpoint, or "".
  std::string OpenDirect(const std::string& function) {
    if (!direct_) {
      std::string err;
      direct_ = DirectCallServer::Open(context_, b_, channel_, function, &err);
      if (!direct_) {
        log::Warning("this manager's callers go through the master: " + err);
        return {};
      }
    }
    return direct_->endpoint();
  }

  int Run() {
    // Held but while a task's function runs (RunNextTask): then the revoke
    // watch may use the socket.
    os::MutexLock lock(mu_);
    Send(wire::Encode(wire::Hello{static_cast<std::uint64_t>(::getpid())}));
    for (;;) {
      const bool idle = queue_.empty();
      if (idle) Flush();
      // Idle, it sleeps until a message comes: once welcomed, the watch
      // ends it when the connection is down (ZeroMQ's heartbeats close the
      // connection to a master that stopped), so no timer of its own wakes
      // it. Silence is no sign: a message of hundreds of MB takes a while.
      // Until WELCOME, the master may take the start timeout to answer.
      auto wait = std::chrono::milliseconds(idle ? -1 : 0);
      if (!welcomed_) {
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(
            started_ + b_.start_timeout - Clock::now());
        if (left <= std::chrono::milliseconds(0))
          Die(kMasterLost, "cannot reach the master at " + b_.master + " (no word for " +
                               log::Seconds(b_.start_timeout) + "); exiting");
        wait = left;
      }
      if (!Receive(wait)) return kStopped;
      if (!queue_.empty() && !RunNextTask()) return kStopped;
    }
  }

 private:
  void Send(zmq::message_t message) FIBER_REQUIRES(mu_) {
    // A send fails only once the master is gone, which the watch handles.
    (void)wire::SendMessage(dealer_, {}, std::move(message));
    master_drained_ = false;  // the send may have taken the signal of a message
  }

  // Takes every message that has arrived, waiting up to wait for the first.
  // False once the master said STOP.
  bool Receive(std::chrono::milliseconds wait) FIBER_REQUIRES(mu_) {
    return direct_ ? ReceiveBoth(wait) : ReceiveFromMaster(wait);
  }

  // Receive for a manager with its own endpoint. A socket read until it had
  // nothing signals its descriptor (ZMQ_FD) once anything more comes, so
  // one poll(2) of the two descriptors waits, and only the socket that
  // signalled is read: zmq_poll would check both sockets' queues before
  // and after it waits, a few system calls each (bench/README.md).
  bool ReceiveBoth(std::chrono::milliseconds wait) FIBER_REQUIRES(mu_) {
    bool master = !master_drained_, direct = !direct_drained_;
    if (!master && !direct) {
      // poll(2) itself: zmq_poll of descriptors polls them once with no
      // wait before it waits. A signal ends it as a time up would.
      pollfd fds[] = {{master_fd_, POLLIN, 0}, {direct_->fd(), POLLIN, 0}};
      if (::poll(fds, 2, static_cast<int>(wait.count())) <= 0) return true;
      master = fds[0].revents != 0;
      direct = fds[1].revents != 0;
    }
    if (direct) {
      ServeDirect();  // reads until nothing is left
      direct_drained_ = true;
    }
    return !master || ReceiveFromMaster(std::chrono::milliseconds(0));
  }

  bool ReceiveFromMaster(std::chrono::milliseconds wait) FIBER_REQUIRES(mu_) {
    // A timed receive costs fewer system calls than a poll and a receive.
    if (wait != receive_timeout_) {
      dealer_.set(zmq::sockopt::rcvtimeo, static_cast<int>(wait.count()));
      receive_timeout_ = wait;
    }
    auto flags = zmq::recv_flags::none;
    for (;;) {
      zmq::message_t message;
      std::string err;
      const auto receipt = wire::ReceiveMessage(dealer_, false, nullptr, &message, &err, flags);
      if (receipt == wire::Receipt::kNone) {
        master_drained_ = true;
        return true;
      }
      if (receipt == wire::Receipt::kMalformed) {
        log::Warning("ignored a malformed message from the master: " + err);
      } else if (!Handle(std::move(message))) {
        return false;
      }
      flags = zmq::recv_flags::dontwait;
    }
  }

  bool Handle(zmq::message_t message) FIBER_REQUIRES(mu_) {
    wire::Header header;
    std::string err;
    if (!wire::ParseHeader(message, &header, &err)) {
      log::Warning("ignored a malformed message from the master: " + err);
      return true;
    }
    if (header.type == Type::kRefuse) {
      wire::Refuse refuse;
      (void)wire::Decode(message, &refuse, &err);
      Die(kRefused, "refused by the master: " +
                        (refuse.reason.empty() ? std::string("no reason") : std::string(refuse.reason)));
    }
    if (header.version != wire::kProtocolVersion)
      Die(kRefused, "the master speaks fiber protocol version " + std::to_string(header.version) +
                        ", this worker version " + std::to_string(wire::kProtocolVersion));
    switch (header.type) {
      case Type::kWelcome: OnWelcome(message); return true;
      case Type::kTask:
        if (!queue_.Add(std::move(message), &err)) Die(kMasterLost, "the master sent a malformed TASK (" + err + ")");
        return true;
      case Type::kRevoke: OnRevoke(message); return true;
      case Type::kStop: return false;
      case Type::kHeartbeat: return true;  // the master lives; nothing to answer
      default:
        log::Warning(std::string("ignored ") + wire::TypeName(header.type) +
                     ", which only a worker sends");
        return true;
    }
  }

  void OnWelcome(const zmq::message_t& message) FIBER_REQUIRES(mu_) {
    wire::Welcome welcome;
    std::string err;
    if (!wire::Decode(message, &welcome, &err))
      Die(kMasterLost, "the master sent " + err);
    channel_ = welcome.channel;
    results_.Welcome(welcome);
    watch_.SetTimeout(b_.heartbeat_timeout);
    welcomed_ = true;
    if (!welcome.init_function.empty()) {
      const CallOutcome init = RunCall(b_.worker_id, Lookup(welcome.init_function).call,
                                       welcome.init_function, welcome.init_args, after_call_);
      if (init.kind == OutcomeKind::kNotRegistered) {
        Send(wire::Encode(wire::InitFailed{{"fiber::NotRegistered", init.value}}, channel_));
        return;
      }
      if (init.kind == OutcomeKind::kRaised) {
        Send(wire::Encode(wire::InitFailed{{init.type, init.message}}, channel_));
        return;
      }
    }
    Send(wire::Encode(wire::Ready{welcome.prefetch}, channel_));
  }

  // Skips the tasks REVOKE names that it holds and has not started, and
  // says so at once: the master gives them to another worker only then.
  // One it has started is its own; its result is the answer.
  void OnRevoke(const zmq::message_t& message) FIBER_REQUIRES(mu_) {
    wire::Revoke revoke;
    std::string err;
    if (!wire::Decode(message, &revoke, &err)) Die(kMasterLost, "the master sent " + err);
    std::vector<std::uint64_t> skipped;
    for (std::uint64_t id : revoke.ids)
      if (queue_.Revoke(id)) skipped.push_back(id);
    if (!skipped.empty()) Send(results_.Skipped(skipped));
  }

  // While a task's function runs, a REVOKE is answered all the same: this
  // thread reads what the master sent whenever the serve loop lets go of
  // the socket, the loop taking up the rest when the function returns.
  void WatchRevokes() {
    for (;;) {
      // The socket's descriptor signals an edge: a message that comes once
      // the last read found none (the loop reads until none is left before
      // each task, and so does this thread).
      pollfd fds[] = {{master_fd_, POLLIN, 0}, {stop_watch_.fd(), POLLIN, 0}};
      (void)::poll(fds, 2, -1);
      if (stopping_) return;
      os::MutexLock lock(mu_);
      if (!in_task_ || stop_seen_) continue;
      if (!ReceiveFromMaster(std::chrono::milliseconds(0))) stop_seen_ = true;
    }
  }

  // Runs the next task (or skips it, answered already); false once the
  // master said STOP meanwhile.
  bool RunNextTask() FIBER_REQUIRES(mu_) {
    const wire::TaskView* next = queue_.Start();
    if (!next) return true;
    const wire::TaskView& task = *next;
    wire::Writer& results =
        results_.AddResult(task.id, static_cast<std::uint32_t>(task.calls.size()));
    const detail::Invokers invokers = Lookup(task.function);
    const detail::Invoker invoker =
        task.form == wire::TaskForm::kChunk ? invokers.chunk : invokers.call;
    const auto start = Clock::now();
    for (std::string_view args : task.calls) {
      in_task_ = true;
      mu_.unlock();
      CallOutcome outcome = RunCall(b_.worker_id, invoker, task.function, args, after_call_);
      mu_.lock();
      in_task_ = false;
      wire::AppendOutcome(results, outcome.view());
    }
    results_.Ran(Clock::now() - start);
    queue_.Done();
    if (results_.Due()) Flush();
    return !stop_seen_;
  }

  // Runs every direct call waiting, as it would a task of one call; the
  // calls of one message are answered in one.
  void ServeDirect() FIBER_REQUIRES(mu_) {
    DirectCallServer::Calls in;
    std::vector<CallOutcome> outcomes;
    std::vector<wire::OutcomeView> views;
    while (direct_->Next(&in)) {
      outcomes.clear();
      views.clear();
      for (const DirectCallServer::Call& call : in.calls)
        outcomes.push_back(
            RunCall(b_.worker_id, Lookup(call.function).call, call.function, call.args,
                    after_call_));
      for (const CallOutcome& outcome : outcomes) views.push_back(outcome.view());
      direct_->Answer(in, views);
    }
  }

  // The registered function called name; remembers the last one asked for,
  // since a batch of tasks usually calls one function.
  detail::Invokers Lookup(std::string_view name) {
    if (name != last_name_) {
      last_name_ = name;
      last_invokers_ = detail::find_invokers(last_name_);
    }
    return last_invokers_;
  }

  void Flush() FIBER_REQUIRES(mu_) {
    if (std::optional<zmq::message_t> results = results_.Take()) Send(std::move(*results));
  }

  const Bootstrap& b_;
  const AfterCall after_call_;
  zmq::context_t context_;
  zmq::socket_t dealer_;
  MasterWatch watch_;
  std::unique_ptr<DirectCallServer> direct_;  // a manager's own endpoint, once it has one
  int master_fd_ = -1;                         // dealer_'s ZMQ_FD
  // Read until nothing was left, and not used since: the socket's
  // descriptor signals what comes next.
  bool master_drained_ FIBER_GUARDED_BY(mu_) = false;
  bool direct_drained_ = false;
  TaskQueue queue_ FIBER_GUARDED_BY(mu_);
  std::string last_name_;
  detail::Invokers last_invokers_;
  ResultBatch results_ FIBER_GUARDED_BY(mu_);
  wire::Channel channel_ = wire::kRunChannel;
  std::chrono::milliseconds receive_timeout_{-1};
  bool welcomed_ = false;
  const Clock::time_point started_ = Clock::now();
  // The socket and what its messages fill: the serve loop's, but while a
  // task's function runs, when the revoke watch reads for it.
  os::Mutex mu_;
  bool in_task_ FIBER_GUARDED_BY(mu_) = false;
  bool stop_seen_ FIBER_GUARDED_BY(mu_) = false;  // the watch read STOP
  std::atomic<bool> stopping_ = false;
  os::WakeFd stop_watch_;
  std::thread watch_revokes_;
};

}  // namespace

int Serve(const Bootstrap& bootstrap, AfterCall after_call) {
  return ServeLoop(bootstrap, after_call).Run();
}

std::string ServeDirectCalls(const std::string& function) {
  return this_thread_loop ? this_thread_loop->OpenDirect(function) : std::string();
}

}  // namespace fiber::worker
