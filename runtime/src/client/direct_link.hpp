// A worker's connection to one manager's own endpoint, for calls in one hop
// (PROTOCOL.md, "Calls in one hop"): a DEALER with the run's keys that first
// asks the manager whether it is the one meant (MANAGER_HELLO), and carries
// calls only once that is answered. A manager it cannot reach (no
// connection within kConnectBound), or one that does not answer so, is
// called through the master instead; so is one whose connection drops, after the calls on it failed,
// since the master knows whether that manager lives. Not thread-safe: its
// owner (ManagerLinks) makes every use under one lock, and polls its
// socket's descriptor, not the socket, while callers send on it.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>
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
  /// For the poll, not once closed: the descriptors (ZMQ_FD) of the
  /// connection and of its events. They signal edge-triggered: check
  /// readable() after any use of the link; Receive and Check take all.
  int fd() const { return fd_; }
  int events_fd() const { return events_fd_; }
  /// An answer is waiting.
  bool readable() {
    return state_ != State::kClosed &&
           (!unpacked_.empty() || (dealer_.get(zmq::sockopt::events) & ZMQ_POLLIN));
  }
  /// When the connection's time is up; none once it is made.
  std::optional<Clock::time_point> deadline() const;

  /// Sends calls in kDirect as one message (several as a kManagerCalls
  /// of id batch_id); false when they could not go.
  [[nodiscard]] bool Send(const std::vector<const wire::Request*>& calls, std::uint64_t batch_id);
  /// The next answer to a call waiting, a batch's answers one by one;
  /// false when none is. Takes the hello's answer itself, which makes the
  /// link kDirect (or kClosed).
  [[nodiscard]] bool Receive(wire::Reply* reply);
  /// Reads the connection's events and checks its time: closes the link
  /// once its connection dropped or failed its handshake, or was not made
  /// within kConnectBound. True when it closed now.
  bool Check(Clock::time_point now);
  /// Closes the link, for why.
  void Close(std::string why);
  /// Why it closed.
  const std::string& why() const { return why_; }

 private:
  void Unpack(const wire::Reply& answer, const std::vector<std::uint64_t>& ids);

  std::string endpoint_;
  zmq::socket_t dealer_;
  int fd_ = -1;         // dealer_'s ZMQ_FD
  int events_fd_ = -1;  // the monitor's
  std::optional<wire::SocketMonitor> monitor_;
  std::uint64_t hello_id_;
  Clock::time_point connect_deadline_;
  bool connected_ = false;  // its handshake succeeded
  std::map<std::uint64_t, std::vector<std::uint64_t>> batches_;  // unanswered, by id: their calls
  std::deque<wire::Reply> unpacked_;  // a batch's answers not yet taken
  State state_ = State::kHello;
  std::string why_;
};

}  // namespace fiber::client
