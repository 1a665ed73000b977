#include "worker/serve_loop.hpp"

#include <cxxabi.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <cstdio>
#include <memory>
#include <thread>
#include <typeinfo>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "fiber/async_result.hpp"
#include "fiber/task.hpp"
#include "wire/credentials.hpp"
#include "wire/message.hpp"

namespace fiber::worker {

using Clock = std::chrono::steady_clock;
using wire::Type;

namespace {

constexpr const char* kPipe = "inproc://fiber-worker-pipe";
// Until WELCOME tells the run's timing.
constexpr auto kConnectTimeout = std::chrono::seconds(30);

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

// One call of a task: [kind][data] as RESULT carries it.
zmq::message_t RunCall(detail::Invoker invoker, const Bootstrap& b, const std::string& function,
                       const zmq::message_t& args) {
  auto frame = [](detail::Outcome::Kind kind, const std::string& data) {
    zmq::message_t m(data.size() + 1);
    auto* bytes = static_cast<char*>(m.data());
    bytes[0] = static_cast<char>(kind);
    if (!data.empty()) std::memcpy(bytes + 1, data.data(), data.size());
    return m;
  };
  if (!invoker)
    return frame(detail::Outcome::Kind::kNotRegistered,
                 "worker " + b.worker_id + " has no task named '" + function +
                     "'; is FIBER_TASK(" + function + ") compiled into this executable?");
  try {
    return frame(detail::Outcome::Kind::kValue, invoker(wire::ToString(args)));
  } catch (const std::exception& e) {
    return frame(detail::Outcome::Kind::kRemoteError, CurrentExceptionType() + "\n" + e.what());
  } catch (...) {
    return frame(detail::Outcome::Kind::kRemoteError,
                 CurrentExceptionType() + "\nan exception that is not a std::exception");
  }
}

// The link thread: the only user of the DEALER socket.
void Link(zmq::context_t& context, const Bootstrap& b) {
  zmq::socket_t pipe(context, zmq::socket_type::pair);
  pipe.connect(kPipe);
  zmq::socket_t dealer(context, zmq::socket_type::dealer);
  dealer.set(zmq::sockopt::routing_id, b.worker_id);
  dealer.set(zmq::sockopt::linger, 2000);
  dealer.set(zmq::sockopt::sndhwm, 0);
  dealer.set(zmq::sockopt::rcvhwm, 0);
  wire::MakeCurveClient(dealer, b.server_public, b.client_public, b.client_secret);
  dealer.connect(b.master);

  zmq::multipart_t hello;
  hello.add(wire::MakeHeader(Type::kHello));
  hello.add(wire::U64Frame(static_cast<std::uint64_t>(::getpid())));
  hello.send(dealer);

  std::chrono::milliseconds interval(500);
  Clock::duration timeout = kConnectTimeout;
  std::uint32_t prefetch = 1;
  bool welcomed = false;
  auto last_heard = Clock::now(), last_sent = Clock::now();
  for (;;) {
    zmq::pollitem_t items[] = {{dealer.handle(), 0, ZMQ_POLLIN, 0},
                               {pipe.handle(), 0, ZMQ_POLLIN, 0}};
    zmq::poll(items, 2, interval);
    const auto now = Clock::now();
    if (items[0].revents & ZMQ_POLLIN) {
      zmq::multipart_t message(dealer);
      last_heard = now;
      wire::Header header;
      std::string err;
      if (message.empty() || !wire::ParseHeader(message.front(), &header, &err)) {
        std::fprintf(stderr, "fiber worker %s: ignored a malformed message from the master: %s\n",
                     b.worker_id.c_str(), err.c_str());
        continue;
      }
      if (header.type == Type::kRefuse)
        Die(b, 3, "refused by the master: " +
                      (message.size() > 1 ? message[1].to_string() : std::string("no reason")));
      if (header.version != wire::kProtocolVersion)
        Die(b, 3, "the master speaks fiber protocol version " + std::to_string(header.version) +
                      ", this worker version " + std::to_string(wire::kProtocolVersion));
      switch (header.type) {
        case Type::kWelcome: {
          std::uint32_t interval_ms = 0, timeout_ms = 0;
          if (message.size() != 6 || !wire::ReadU32(message[1], &interval_ms) ||
              !wire::ReadU32(message[2], &timeout_ms) || !wire::ReadU32(message[3], &prefetch) ||
              interval_ms == 0 || timeout_ms <= interval_ms || prefetch == 0)
            Die(b, 1, "the master sent a malformed WELCOME");
          interval = std::chrono::milliseconds(interval_ms);
          timeout = std::chrono::milliseconds(timeout_ms);
          welcomed = true;
          if (message[4].size() == 0) {
            zmq::multipart_t ready;
            ready.add(wire::MakeHeader(Type::kReady));
            ready.add(wire::U32Frame(prefetch));
            ready.send(dealer);
          } else {
            zmq::multipart_t init;  // runs as task 0 on the main thread
            init.add(wire::MakeHeader(Type::kTask));
            init.add(wire::U64Frame(0));
            init.add(std::move(message[4]));
            init.add(std::move(message[5]));
            init.send(pipe);
          }
          break;
        }
        case Type::kTask:
          if (message.size() < 3 || message[1].size() != sizeof(std::uint64_t)) {
            std::fprintf(stderr, "fiber worker %s: ignored a malformed TASK\n", b.worker_id.c_str());
            break;
          }
          message.send(pipe);
          break;
        case Type::kStop: {
          zmq::multipart_t stop;
          stop.add(wire::MakeHeader(Type::kStop));
          stop.send(pipe);
          return;
        }
        case Type::kHeartbeat:
          break;
        default:
          std::fprintf(stderr, "fiber worker %s: ignored %s, which only a worker sends\n",
                       b.worker_id.c_str(), wire::TypeName(header.type));
      }
    }
    if (items[1].revents & ZMQ_POLLIN) {
      zmq::multipart_t result(pipe);
      std::uint64_t task_id = 1;
      wire::ReadU64(result[1], &task_id);
      if (task_id == 0) {  // the initializer
        const auto* outcome = static_cast<const char*>(result[2].data());
        zmq::multipart_t reply;
        if (outcome[0] == static_cast<char>(detail::Outcome::Kind::kValue)) {
          reply.add(wire::MakeHeader(Type::kReady));
          reply.add(wire::U32Frame(prefetch));
        } else {
          reply.add(wire::MakeHeader(Type::kInitFailed));
          reply.addstr(std::string(outcome + 1, result[2].size() - 1));
        }
        reply.send(dealer);
      } else {
        result.send(dealer);
      }
      last_sent = now;
    }
    if (now - last_sent >= interval) {
      zmq::multipart_t beat;
      beat.add(wire::MakeHeader(Type::kHeartbeat));
      beat.send(dealer, ZMQ_DONTWAIT);
      last_sent = now;
    }
    if (now - last_heard > timeout) {
      const double seconds = std::chrono::duration<double>(timeout).count();
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.1f", seconds);
      Die(b, 1, std::string(welcomed ? "lost the master at " : "cannot reach the master at ") +
                    b.master + " (no word for " + buf + " s); exiting");
    }
  }
}

}  // namespace

int Serve(const Bootstrap& b) {
  zmq::context_t context(1);
  zmq::socket_t pipe(context, zmq::socket_type::pair);
  pipe.bind(kPipe);
  std::thread link([&] { Link(context, b); });
  for (;;) {
    zmq::multipart_t message(pipe);
    wire::Header header;
    std::string err;
    wire::ParseHeader(message.front(), &header, &err);
    if (header.type == Type::kStop) break;
    // TASK: [header][task id][function][args]...
    const std::string function = message[2].to_string();
    const detail::Invoker invoker = detail::find_invoker(function);
    zmq::multipart_t result;
    result.add(wire::MakeHeader(Type::kResult));
    result.add(std::move(message[1]));
    for (std::size_t i = 3; i < message.size(); ++i)
      result.add(RunCall(invoker, b, function, message[i]));
    result.send(pipe);
  }
  link.join();
  return 0;
}

}  // namespace fiber::worker
