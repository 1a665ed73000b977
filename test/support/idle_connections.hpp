// TCP connections that never speak, opened by a test (or a bench) itself
// against a port of the run: what a stranger on the same machine can hold
// open before any handshake. Each comes from a source address of the
// caller's choosing (any of 127/8 reaches 127.0.0.1 on Linux), so a flood
// can come from several addresses. ConnectionFlood keeps such connections
// open from a thread of its own, opening new ones as the listener closes
// them. Header-only and without doctest, so bench/ uses it too.
// IdleConnections is not thread-safe (one owner); a ConnectionFlood owns
// its thread and connections.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace fiber::testing {

class IdleConnections {
 public:
  using Clock = std::chrono::steady_clock;

  /// count connections to 127.0.0.1:port from source (an IPv4 address),
  /// opened a few at a time, each batch connected before the next, so the
  /// listener's backlog is not what refuses them.
  IdleConnections(int port, int count, const std::string& source = "127.0.0.1")
      : count_(count) {
    to_.sin_family = AF_INET;
    to_.sin_port = htons(static_cast<std::uint16_t>(port));
    to_.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    from_.sin_family = AF_INET;
    if (::inet_pton(AF_INET, source.c_str(), &from_.sin_addr) != 1) from_.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    Open(count);
  }
  ~IdleConnections() {
    for (int fd : fds_) ::close(fd);
  }
  IdleConnections(const IdleConnections&) = delete;
  IdleConnections& operator=(const IdleConnections&) = delete;

  struct Ends {
    std::size_t open = 0;
    std::size_t closed_by_peer = 0;   // the end of the stream, or a reset
    std::size_t never_connected = 0;  // refused, timed out, or no socket
  };
  /// Waits until none is open or the deadline passes.
  Ends WaitAllEnded(Clock::time_point deadline) {
    for (;;) {
      const Ends ends = Look();
      if (ends.open == 0 || Clock::now() >= deadline) return ends;
      std::vector<pollfd> items;
      for (int fd : fds_) items.push_back({fd, POLLIN, 0});
      ::poll(items.data(), items.size(), 200);
    }
  }
  /// Opens new connections in place of those that have ended, so that
  /// count are open again: a flood that refills.
  void Refill() { Open(count_ - static_cast<int>(Look().open)); }

 private:
  void Open(int count) {
    constexpr int kBatch = 20;
    for (int first = 0; first < count; first += kBatch) {
      std::vector<pollfd> batch;
      for (int i = first; i < count && i < first + kBatch; ++i) {
        const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0 || ::bind(fd, reinterpret_cast<const sockaddr*>(&from_), sizeof from_) != 0 ||
            (::connect(fd, reinterpret_cast<const sockaddr*>(&to_), sizeof to_) != 0 &&
             errno != EINPROGRESS)) {
          if (fd >= 0) ::close(fd);
          ++ends_.never_connected;
          continue;
        }
        fds_.push_back(fd);
        batch.push_back({fd, POLLOUT, 0});
      }
      // Connected, or failed (then counted as never connected by Look).
      // The wait bounds a hang, long enough for TCP's own retries on a
      // loaded machine.
      const auto deadline = Clock::now() + std::chrono::seconds(60);
      for (auto& item : batch) {
        while (Clock::now() < deadline) {
          item.revents = 0;
          if (::poll(&item, 1, 100) > 0) break;
        }
      }
    }
  }

  Ends Look() {
    std::vector<int> open;
    for (int fd : fds_) {
      // The listener's ZMTP greeting may come first: read past it.
      char buffer[512];
      ssize_t n;
      while ((n = ::recv(fd, buffer, sizeof buffer, MSG_DONTWAIT)) > 0) {
      }
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOTCONN)) {
        open.push_back(fd);
        continue;
      }
      if (n == 0 || errno == ECONNRESET || errno == EPIPE)
        ++ends_.closed_by_peer;
      else
        ++ends_.never_connected;
      ::close(fd);
    }
    fds_ = std::move(open);
    Ends ends = ends_;
    ends.open = fds_.size();
    return ends;
  }

  const int count_;
  sockaddr_in to_{}, from_{};
  std::vector<int> fds_;  // open, as far as the last look knows
  Ends ends_;
};

/// count idle connections to 127.0.0.1:port from each of sources, kept
/// open (ended ones replaced every 100 ms) until it is destroyed.
class ConnectionFlood {
 public:
  ConnectionFlood(int port, int count, const std::vector<std::string>& sources)
      : thread_([this, port, count, sources] {
          std::vector<std::unique_ptr<IdleConnections>> floods;
          for (const std::string& source : sources)
            floods.push_back(std::make_unique<IdleConnections>(port, count, source));
          started_ = true;
          while (!stop_) {
            for (auto& flood : floods) flood->Refill();
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
          }
        }) {
    while (!started_) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ~ConnectionFlood() {
    stop_ = true;
    thread_.join();
  }
  ConnectionFlood(const ConnectionFlood&) = delete;
  ConnectionFlood& operator=(const ConnectionFlood&) = delete;

 private:
  std::atomic<bool> started_{false}, stop_{false};
  std::thread thread_;
};

}  // namespace fiber::testing
