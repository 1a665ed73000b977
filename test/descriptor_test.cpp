// The one descriptor type: a descriptor has one owner and is closed with it;
// WriteAll writes all of a buffer however the kernel splits it.
#include "os/descriptor.hpp"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <string>
#include <thread>

using fiber::os::Descriptor;

namespace {
bool IsOpen(int fd) { return ::fcntl(fd, F_GETFD) != -1; }
}  // namespace

TEST_CASE("a descriptor is closed when its owner goes, and not before") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  ::close(fds[1]);
  {
    Descriptor d(fds[0]);
    CHECK(IsOpen(fds[0]));
  }
  CHECK_FALSE(IsOpen(fds[0]));
}

TEST_CASE("a moved descriptor has one owner, which closes it once") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  Descriptor write_end(fds[1]);
  Descriptor a(fds[0]);
  Descriptor b(std::move(a));
  CHECK_FALSE(a);
  CHECK(b.get() == fds[0]);
  Descriptor c;
  c = std::move(b);
  CHECK(IsOpen(fds[0]));
  c.Reset();
  CHECK_FALSE(IsOpen(fds[0]));
  CHECK(write_end.Close());
  CHECK_FALSE(write_end);
}

TEST_CASE("WriteAll writes a buffer larger than a pipe holds, all of it, in order") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  Descriptor read_end(fds[0]), write_end(fds[1]);
  std::string data(1 << 20, '\0');
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 7);
  std::string got;
  std::thread reader([&] {
    char buf[4096];
    ssize_t n;
    while ((n = ::read(read_end.get(), buf, sizeof buf)) > 0) got.append(buf, static_cast<std::size_t>(n));
  });
  CHECK(fiber::os::WriteAll(write_end.get(), data));
  write_end.Reset();
  reader.join();
  CHECK(got == data);
}

TEST_CASE("WriteAll to a descriptor that cannot be written says so") {
  CHECK_FALSE(fiber::os::WriteAll(-1, "lost"));
}
