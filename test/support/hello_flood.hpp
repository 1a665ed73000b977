// A stranger's CurveZMQ handshakes, as fast as one thread can make them:
// connections to 127.0.0.1:port from the caller's source addresses, each
// sending a ZMTP greeting and a CURVE HELLO of random bytes at once (what
// costs the listener an X25519 and its sender almost nothing), then opened
// again as soon as the listener closes it. Counts the HELLOs the listener
// read and refused by closing. Header-only and without doctest, so bench/
// uses it too. Owns its thread and connections; refused() is thread-safe.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace fiber::testing {

class HelloFlood {
 public:
  /// in_flight connections from each of sources at any time.
  HelloFlood(int port, int in_flight, const std::vector<std::string>& sources)
      : thread_([this, port, in_flight, sources] { Run(port, in_flight, sources); }) {}
  ~HelloFlood() {
    stop_ = true;
    thread_.join();
  }
  HelloFlood(const HelloFlood&) = delete;
  HelloFlood& operator=(const HelloFlood&) = delete;

  /// Connections the listener closed after their HELLO was sent.
  std::uint64_t refused() const { return refused_; }

 private:
  struct Connection {
    int fd = -1;
    bool sent = false;
    const sockaddr_in* from = nullptr;
  };

  // ZMTP 3.0's greeting for a CURVE client, then HELLO (RFC 26): a command
  // frame of 200 bytes whose transient key, nonce and box are random.
  static std::string Handshake(std::mt19937& random) {
    std::string bytes(64, '\0');
    bytes[0] = static_cast<char>(0xFF);
    bytes[9] = 0x7F;
    bytes[10] = 3;  // version 3.0
    bytes.replace(12, 5, "CURVE");
    std::string hello = std::string("\x04\xC8\x05HELLO\x01\x00", 10) + std::string(72, '\0');
    for (int i = 0; i < 32 + 8 + 80; ++i) hello += static_cast<char>(random() & 0xFF);
    return bytes + hello;
  }

  static int Open(const sockaddr_in& from, const sockaddr_in& to) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (::bind(fd, reinterpret_cast<const sockaddr*>(&from), sizeof from) != 0 ||
        (::connect(fd, reinterpret_cast<const sockaddr*>(&to), sizeof to) != 0 && errno != EINPROGRESS)) {
      ::close(fd);
      return -1;
    }
    return fd;
  }

  void Run(int port, int in_flight, const std::vector<std::string>& sources) {
    std::mt19937 random(std::random_device{}());
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(static_cast<std::uint16_t>(port));
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    std::vector<sockaddr_in> from(sources.size());
    std::vector<Connection> connections;
    for (std::size_t i = 0; i < sources.size(); ++i) {
      from[i].sin_family = AF_INET;
      if (::inet_pton(AF_INET, sources[i].c_str(), &from[i].sin_addr) != 1)
        from[i].sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      for (int n = 0; n < in_flight; ++n) connections.push_back({-1, false, &from[i]});
    }
    std::vector<pollfd> items(connections.size());
    while (!stop_) {
      for (std::size_t i = 0; i < connections.size(); ++i) {
        Connection& c = connections[i];
        if (c.fd < 0) c = {Open(*c.from, to), false, c.from};
        items[i] = {c.fd, static_cast<short>(c.sent ? POLLIN : POLLOUT), 0};
      }
      if (::poll(items.data(), items.size(), 100) <= 0) continue;
      for (std::size_t i = 0; i < connections.size(); ++i) {
        Connection& c = connections[i];
        if (c.fd < 0 || items[i].revents == 0) continue;
        bool ended = (items[i].revents & (POLLERR | POLLHUP)) != 0;
        if (!ended && !c.sent) {
          const std::string bytes = Handshake(random);
          c.sent = ::send(c.fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size());
          ended = !c.sent;
        } else if (!ended) {
          char buffer[512];  // the listener's greeting, then its end
          const ssize_t n = ::recv(c.fd, buffer, sizeof buffer, 0);
          ended = n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
        }
        if (ended) {
          refused_ += c.sent;
          ::close(c.fd);
          c.fd = -1;
        }
      }
    }
    for (const Connection& c : connections)
      if (c.fd >= 0) ::close(c.fd);
  }

  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> refused_{0};
  std::thread thread_;
};

}  // namespace fiber::testing
