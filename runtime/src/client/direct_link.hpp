// A worker's connection to one manager's own endpoint, for calls in one hop
// (PROTOCOL.md, "Calls in one hop"): a DEALER with the run's keys that first
// asks the manager whether it is the one meant (MANAGER_HELLO), and carries
// calls only once that is answered. A manager it cannot reach (no
// connection within kConnectBound), or one that does not answer so, is
// called through the master instead; so is one whose connection drops, after the calls on it failed,
// since the master knows whether that manager lives. Owned by the run
// client's I/O thread; not thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <zmq.hpp>

#include "wire/request.hpp"
#include "wire/socket_monitor.hpp"

namespace fiber::client {

class DirectLink {
 public:
  using Clock = std::chrono::steady_clock;
  /// How long the connection to a manager may take, its handshake
  /// included: one that has not completed by then (an address this worker
  /// cannot reach) falls back. The hello's answer may then take longer: a
  /// manager answers it between calls, and a call may run for long.
  static constexpr std::chrono::milliseconds kConnectBound{3000};

  enum class State { kHello, kDirect, kClosed };

  /// Connects to the manager on channel at endpoint and says hello (a
  /// request of id hello_id). Never throws: a link that cannot even connect
  /// starts closed.
  DirectLink(zmq::context_t& context, const std::string& client_secret,
             std::chrono::milliseconds heartbeat_timeout, const std::string& endpoint,
             wire::Channel channel, std::uint64_t hello_id, Clock::time_point now);

  State state() const { return state_; }
  const std::string& endpoint() const { return endpoint_; }
  /// For the poll: the connection and its events; nullptr once closed.
  void* socket() { return state_ == State::kClosed ? nullptr : dealer_.handle(); }
  void* events() { return state_ == State::kClosed ? nullptr : monitor_->handle(); }
  /// When the connection's time is up; none once it is made.
  std::optional<Clock::time_point> deadline() const;

  /// Sends a call in kDirect; false when it could not go (the link is then closed).
  [[nodiscard]] bool Send(const wire::Request& request);
  /// The next answer to a call waiting; false when none is. Takes the
  /// hello's answer itself, which makes the link kDirect (or kClosed).
  [[nodiscard]] bool Receive(wire::Reply* reply);
  /// Reads the connection's events and checks its time: closes the link
  /// once its connection dropped or failed its handshake, or was not made
  /// within kConnectBound. True when it closed now.
  bool Check(Clock::time_point now);
  /// Why it closed.
  const std::string& why() const { return why_; }

 private:
  void Close(std::string why);

  std::string endpoint_;
  zmq::socket_t dealer_;
  std::optional<wire::SocketMonitor> monitor_;
  std::uint64_t hello_id_;
  Clock::time_point connect_deadline_;
  bool connected_ = false;  // its handshake succeeded
  State state_ = State::kHello;
  std::string why_;
};

}  // namespace fiber::client
