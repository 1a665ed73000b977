// Descriptors the program holds are its own: local workers (forked by the
// fork server, the program started again) do not inherit those it opened
// without close-on-exec.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <unistd.h>

#include <fiber/fiber.hpp>

#include <vector>

namespace {

// Whether descriptor fd is open in the worker that runs this.
int descriptor_open(int fd) { return ::fcntl(fd, F_GETFD) != -1 ? 1 : 0; }

}  // namespace

FIBER_TASK(descriptor_open);

TEST_CASE("a descriptor the program opened without close-on-exec is not open in its local workers") {
  // No O_CLOEXEC, as much code opens files; a number no worker would
  // reach on its own, so an open one there can only be this.
  const int opened = ::open("/dev/null", O_RDONLY);
  REQUIRE(opened >= 0);
  const int fd = ::fcntl(opened, F_DUPFD, 200);
  ::close(opened);
  REQUIRE(fd >= 200);
  REQUIRE(descriptor_open(fd) == 1);

  fiber::Pool pool(2);
  CHECK(pool.map(descriptor_open, std::vector<int>(4, fd)) == std::vector<int>(4, 0));
  // The worker's own output is still there: only inherited ones are closed.
  CHECK(pool.apply(descriptor_open, 1) == 1);
  ::close(fd);
}
