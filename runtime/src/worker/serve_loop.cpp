#include "worker/serve_loop.hpp"

#include <cxxabi.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
#include <memory>
#include <optional>
#include <typeinfo>
#include <zmq.hpp>

#include "fiber/async_result.hpp"
#include "fiber/task.hpp"
#include "wire/credentials.hpp"
#include "wire/message.hpp"
#include "wire/task_batch.hpp"
#include "worker/master_watch.hpp"

namespace fiber::worker {

using Clock = std::chrono::steady_clock;
using detail::Outcome;
using wire::Type;

namespace {

// Until WELCOME tells the run's timing.
constexpr auto kConnectTimeout = std::chrono::seconds(30);
// Results wait to share a message only while the work done since the last
// send is shorter than this, and only up to this many bytes.
constexpr auto kBatchWork = std::chrono::microseconds(200);
constexpr std::size_t kBatchBytes = 1 << 20;
// A worker asks for about this much work ahead, and never fewer tasks than
// the prefetch setting nor more than kMaxCredit.
constexpr double kWorkAheadSeconds = 0.002;
constexpr std::uint32_t kMaxCredit = 256;

[[noreturn]] void Die(const Bootstrap& b, int status, const std::string& why) {
  std::fprintf(stderr, "fiber worker %s: %s\n", b.worker_id.c_str(), why.c_str());
  std::fflush(stderr);
  ::_exit(status);
}

std::string CurrentExceptionType() {
  const std::type_info* type = abi::__cxa_current_exception_type();
  if (!type) return "unknown";
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(
      abi::__cxa_demangle(type->name(), nullptr, nullptr, &status), std::free);
  return status == 0 ? name.get() : type->name();
}

// Runs one call of function (nullptr: not registered here); its outcome as
// RESULT carries it.
std::pair<Outcome::Kind, std::string> RunCall(const Bootstrap& b, detail::Invoker invoker,
                                              std::string_view function, std::string_view args) {
  if (!invoker)
    return {Outcome::Kind::kNotRegistered,
            "worker " + b.worker_id + " has no task named '" + std::string(function) +
                "'; is FIBER_TASK(" + std::string(function) + ") compiled into this executable?"};
  try {
    return {Outcome::Kind::kValue, invoker(args)};
  } catch (const std::exception& e) {
    return {Outcome::Kind::kRemoteError, CurrentExceptionType() + "\n" + e.what()};
  } catch (...) {
    return {Outcome::Kind::kRemoteError,
            CurrentExceptionType() + "\nan exception that is not a std::exception"};
  }
}

class ServeLoop {
 public:
  explicit ServeLoop(const Bootstrap& b)
      : b_(b),
        context_(1),
        dealer_(context_, zmq::socket_type::dealer),
        watch_(context_, dealer_, b.worker_id, b.master, kConnectTimeout),
        interval_(b.heartbeat_interval),
        timeout_(b.heartbeat_timeout) {
    dealer_.set(zmq::sockopt::routing_id, b.worker_id);
    dealer_.set(zmq::sockopt::linger, 2000);
    dealer_.set(zmq::sockopt::sndhwm, 0);
    dealer_.set(zmq::sockopt::rcvhwm, 0);
    // ZeroMQ's own heartbeats close the connection to a master that stopped
    // answering, even while a long task keeps this thread busy; the watch
    // then ends the process.
    dealer_.set(zmq::sockopt::heartbeat_ivl, static_cast<int>(interval_.count()));
    dealer_.set(zmq::sockopt::heartbeat_timeout, static_cast<int>(timeout_.count()));
    wire::MakeCurveClient(dealer_, b.server_public, b.client_public, b.client_secret);
    dealer_.connect(b.master);
  }

  int Run() {
    Send(wire::Writer(Type::kHello).U64(static_cast<std::uint64_t>(::getpid())).Finish());
    for (;;) {
      const bool idle = queue_.empty();
      if (idle) Flush();
      if (!Receive(idle ? interval_ : std::chrono::milliseconds(0))) return 0;
      if (!queue_.empty()) RunNextTask();
      const auto now = Clock::now();
      if (now - last_sent_ >= interval_) Send(wire::Control(Type::kHeartbeat));
      const auto quiet_limit = welcomed_ ? Clock::duration(timeout_) : kConnectTimeout;
      if (queue_.empty() && now - quiet_since_ > quiet_limit) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.1f", std::chrono::duration<double>(quiet_limit).count());
        Die(b_, 1, std::string(welcomed_ ? "lost the master at " : "cannot reach the master at ") +
                       b_.master + " (no word for " + buf + " s); exiting");
      }
    }
  }

 private:
  // A TASK message and the tasks it holds, run in order. Never moved once
  // parsed (std::deque keeps its elements in place).
  struct Received {
    explicit Received(zmq::message_t m) : message(std::move(m)) {}
    zmq::message_t message;
    std::vector<wire::TaskView> tasks;
    std::size_t next = 0;
  };

  void Send(zmq::message_t message) {
    dealer_.send(message, zmq::send_flags::dontwait);
    last_sent_ = Clock::now();
  }

  // Takes every message that has arrived, waiting up to wait for the first.
  // False once the master said STOP.
  bool Receive(std::chrono::milliseconds wait) {
    // A timed receive costs fewer system calls than a poll and a receive.
    if (wait != receive_timeout_) {
      dealer_.set(zmq::sockopt::rcvtimeo, static_cast<int>(wait.count()));
      receive_timeout_ = wait;
    }
    zmq::message_t message;
    if (!dealer_.recv(message)) return true;
    for (;;) {
      quiet_since_ = Clock::now();
      if (!Handle(std::move(message))) return false;
      message = zmq::message_t();
      if (!dealer_.recv(message, zmq::recv_flags::dontwait)) return true;
    }
  }

  bool Handle(zmq::message_t message) {
    wire::Header header;
    std::string err;
    if (!wire::ParseHeader(message, &header, &err)) {
      std::fprintf(stderr, "fiber worker %s: ignored a malformed message from the master: %s\n",
                   b_.worker_id.c_str(), err.c_str());
      return true;
    }
    if (header.type == Type::kRefuse) {
      wire::Reader r(message);
      const std::string_view why = r.Rest();
      Die(b_, 3, "refused by the master: " + (why.empty() ? std::string("no reason") : std::string(why)));
    }
    if (header.version != wire::kProtocolVersion)
      Die(b_, 3, "the master speaks fiber protocol version " + std::to_string(header.version) +
                     ", this worker version " + std::to_string(wire::kProtocolVersion));
    switch (header.type) {
      case Type::kWelcome: OnWelcome(message); return true;
      case Type::kTask: {
        // Parsed in place: the views point into the message's bytes, which
        // a short message keeps inside itself and a move would relocate.
        Received& received = queue_.emplace_back(std::move(message));
        if (!wire::ReadTasks(received.message, &received.tasks, &err))
          Die(b_, 1, "the master sent a malformed TASK (" + err + ")");
        if (received.tasks.empty()) queue_.pop_back();
        return true;
      }
      case Type::kStop: return false;
      case Type::kHeartbeat: return true;
      default:
        std::fprintf(stderr, "fiber worker %s: ignored %s, which only a worker sends\n",
                     b_.worker_id.c_str(), wire::TypeName(header.type));
        return true;
    }
  }

  void OnWelcome(const zmq::message_t& message) {
    wire::Reader r(message);
    std::string_view init, init_args;
    if (!r.U32(&prefetch_) || !r.Bytes(&init) || !r.Bytes(&init_args) || !r.AtEnd() ||
        prefetch_ == 0)
      Die(b_, 1, "the master sent a malformed WELCOME");
    watch_.SetTimeout(timeout_);
    welcomed_ = true;
    if (!init.empty()) {
      auto [kind, data] = RunCall(b_, Lookup(init), init, init_args);
      quiet_since_ = Clock::now();
      if (kind != Outcome::Kind::kValue) {
        if (kind == Outcome::Kind::kNotRegistered) data = "fiber::NotRegistered\n" + data;
        Send(wire::Writer(Type::kInitFailed).Rest(data).Finish());
        return;
      }
    }
    Send(wire::Writer(Type::kReady).U32(prefetch_).Finish());
  }

  void RunNextTask() {
    Received& front = queue_.front();
    const wire::TaskView& task = front.tasks[front.next];
    if (!results_) {
      results_.emplace(Type::kResult);
      results_->U32(Credit());
    }
    wire::AppendResultHead(*results_, task.id, static_cast<std::uint32_t>(task.calls.size()));
    const detail::Invoker invoker = Lookup(task.function);
    const auto start = Clock::now();
    for (std::string_view args : task.calls) {
      const auto [kind, data] = RunCall(b_, invoker, task.function, args);
      wire::AppendOutcome(*results_, static_cast<std::uint8_t>(kind), data);
    }
    const auto end = Clock::now();
    quiet_since_ = end;
    work_since_flush_ += end - start;
    const double seconds = std::chrono::duration<double>(end - start).count();
    task_seconds_ = task_seconds_ < 0 ? seconds : 0.8 * task_seconds_ + 0.2 * seconds;
    if (++front.next == front.tasks.size()) queue_.pop_front();
    if (work_since_flush_ >= kBatchWork || results_->size() >= kBatchBytes) Flush();
  }

  // The registered function called name; remembers the last one asked for,
  // since a batch of tasks usually calls one function.
  detail::Invoker Lookup(std::string_view name) {
    if (name != last_name_) {
      last_name_ = name;
      last_invoker_ = detail::find_invoker(last_name_);
    }
    return last_invoker_;
  }

  // How many tasks to hold: about kWorkAheadSeconds of them, by the recent
  // mean task time.
  std::uint32_t Credit() const {
    if (task_seconds_ <= 0) return prefetch_;
    const double ahead = std::ceil(kWorkAheadSeconds / task_seconds_);
    return static_cast<std::uint32_t>(
        std::clamp(ahead, static_cast<double>(prefetch_), static_cast<double>(kMaxCredit)));
  }

  void Flush() {
    if (!results_) return;
    Send(results_->Finish());
    results_.reset();
    work_since_flush_ = Clock::duration::zero();
  }

  const Bootstrap& b_;
  zmq::context_t context_;
  zmq::socket_t dealer_;
  MasterWatch watch_;
  std::deque<Received> queue_;
  std::string last_name_;
  detail::Invoker last_invoker_ = nullptr;
  std::optional<wire::Writer> results_;  // RESULT being filled
  Clock::duration work_since_flush_{};
  double task_seconds_ = -1;  // mean run time of recent tasks; < 0: none yet
  std::uint32_t prefetch_ = 1;
  std::chrono::milliseconds interval_;
  std::chrono::milliseconds timeout_;
  std::chrono::milliseconds receive_timeout_{-1};
  bool welcomed_ = false;
  Clock::time_point last_sent_ = Clock::now(), quiet_since_ = Clock::now();
};

}  // namespace

int Serve(const Bootstrap& bootstrap) { return ServeLoop(bootstrap).Run(); }

}  // namespace fiber::worker
