#include "support/frame_gate.hpp"

#include <arpa/inet.h>
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "support/loopback_port.hpp"

namespace fiber::testing {

namespace {

constexpr std::size_t kGreetingBytes = 64;

// On the relay's thread, where a REQUIRE's exception would end the process:
// -1 when it cannot connect (the peer then sees its connection end).
int Connect(const std::string& endpoint) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(std::stoi(endpoint.substr(endpoint.rfind(':') + 1))));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

bool WriteAll(int fd, const char* data, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::send(fd, data, n, MSG_NOSIGNAL);
    if (w <= 0) return false;
    data += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

// The length of the whole frame at the start of bytes (header and body), or
// 0 while its header is incomplete.
std::size_t FrameLength(const std::vector<char>& bytes, std::size_t at) {
  if (bytes.size() - at < 2) return 0;
  const auto flags = static_cast<std::uint8_t>(bytes[at]);
  if (!(flags & 0x02)) return 2 + static_cast<std::uint8_t>(bytes[at + 1]);
  if (bytes.size() - at < 9) return 0;
  std::uint64_t size = 0;
  for (int i = 1; i <= 8; ++i) size = (size << 8) | static_cast<std::uint8_t>(bytes[at + i]);
  return 9 + static_cast<std::size_t>(size);
}

}  // namespace

FrameGate::FrameGate(const std::string& master)
    : allowed_(std::numeric_limits<std::size_t>::max()) {
  int port = 0;
  const int listener = ListenOnLoopback(&port);
  endpoint_ = "tcp://127.0.0.1:" + std::to_string(port);
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  REQUIRE(wake_fd_ >= 0);
  thread_ = std::thread([this, listener, master] {
    pollfd waiting[] = {{listener, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    while (!stopping_ && ::poll(waiting, 2, -1) >= 0 && !(waiting[0].revents & POLLIN)) {
    }
    const int peer = stopping_ ? -1 : ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    ::close(listener);
    if (peer < 0) return;
    const int to_master = Connect(master);
    if (to_master < 0) {
      ::close(peer);
      closed_ = true;
      return;
    }
    std::vector<char> pending;  // from the peer, not yet passed
    std::size_t greeting_left = kGreetingBytes;
    char buffer[1 << 16];
    for (;;) {
      // Pass what the allowance lets through.
      std::size_t at = 0;
      if (greeting_left > 0) {
        at = std::min(greeting_left, pending.size());
        greeting_left -= at;
      }
      while (greeting_left == 0 && passed_ < allowed_) {
        const std::size_t n = FrameLength(pending, at);
        if (n == 0 || pending.size() - at < n) break;
        at += n;
        ++passed_;
      }
      if (at > 0) {
        if (!WriteAll(to_master, pending.data(), at)) break;
        pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(at));
      }
      // Read more from the peer only while it may be passed: one frame
      // held at most.
      const bool take = pending.size() < sizeof buffer || passed_ < allowed_;
      pollfd items[] = {{peer, static_cast<short>(take ? POLLIN : 0), 0},
                        {to_master, POLLIN, 0},
                        {wake_fd_, POLLIN, 0}};
      if (::poll(items, 3, -1) < 0) continue;
      if (items[2].revents & POLLIN) {
        std::uint64_t v;
        if (::read(wake_fd_, &v, sizeof v) < 0) {
        }
      }
      if (stopping_) break;
      if (items[1].revents & (POLLIN | POLLHUP | POLLERR)) {
        const ssize_t n = ::recv(to_master, buffer, sizeof buffer, 0);
        if (n <= 0 || !WriteAll(peer, buffer, static_cast<std::size_t>(n))) {
          closed_ = true;
          break;
        }
      }
      if (items[0].revents & (POLLIN | POLLHUP | POLLERR)) {
        const ssize_t n = ::recv(peer, buffer, sizeof buffer, 0);
        if (n <= 0) break;
        pending.insert(pending.end(), buffer, buffer + n);
      }
    }
    ::close(peer);
    ::close(to_master);
  });
}

FrameGate::~FrameGate() {
  stopping_ = true;
  const std::uint64_t one = 1;
  if (::write(wake_fd_, &one, sizeof one) < 0) {
  }
  thread_.join();
  ::close(wake_fd_);
}

void FrameGate::PassUpTo(std::size_t frames) {
  allowed_ = frames;
  const std::uint64_t one = 1;
  if (::write(wake_fd_, &one, sizeof one) < 0) {
  }
}

}  // namespace fiber::testing
