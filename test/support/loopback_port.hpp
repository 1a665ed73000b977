// TCP ports on 127.0.0.1 for tests: a listening socket on a port the system
// chose, or a port that was free a moment ago (for a program told to listen
// on it).
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <doctest/doctest.h>

namespace fiber::testing {

/// A socket listening on 127.0.0.1 at a free port, which *port gets.
inline int ListenOnLoopback(int* port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(fd >= 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  REQUIRE(::listen(fd, 1) == 0);
  socklen_t size = sizeof a;
  REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &size) == 0);
  *port = ntohs(a.sin_port);
  return fd;
}

/// A port free on 127.0.0.1 now (listened on, then closed).
inline int FreeLoopbackPort() {
  int port = 0;
  ::close(ListenOnLoopback(&port));
  return port;
}

}  // namespace fiber::testing
