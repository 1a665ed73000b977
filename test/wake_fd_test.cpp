// The one wake descriptor: a wake makes it readable for its poller, however
// many came, until the poller clears it; clearing when nothing came is
// harmless.
#include "os/wake_fd.hpp"

#include <doctest/doctest.h>
#include <poll.h>

#include <string>
#include <thread>

using fiber::os::WakeFd;

namespace {
bool Readable(int fd, int timeout_ms = 0) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, timeout_ms) == 1;
}
}  // namespace

TEST_CASE("a wake makes it readable until cleared, however many came") {
  WakeFd wake;
  std::string err;
  REQUIRE(wake.Open(&err));
  CHECK_FALSE(Readable(wake.fd()));
  wake.Wake();
  wake.Wake();
  CHECK(Readable(wake.fd()));
  wake.Clear();
  CHECK_FALSE(Readable(wake.fd()));
  wake.Clear();  // nothing to clear: it does not block
  CHECK_FALSE(Readable(wake.fd()));
}

TEST_CASE("a wake from another thread ends the poller's wait") {
  WakeFd wake;
  std::string err;
  REQUIRE(wake.Open(&err));
  std::thread waker([&] { wake.Wake(); });
  CHECK(Readable(wake.fd(), -1));
  waker.join();
}
