// Idle TCP connections to the run's port, from a peer that never speaks: a
// master that may hold only 256 descriptors still makes a new pool, and
// closes every such connection. The master is a real program
// (programs/idle_connections.cpp). Asserts outcomes only; the waits are
// bounds against a hang, long enough for TCP's own retries on a loaded machine.
#include <arpa/inet.h>
#include <doctest/doctest.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "subprocess.hpp"
#include "support/temp_dir.hpp"

namespace {

using Clock = std::chrono::steady_clock;

// Connections that never speak. Opened a few at a time, each batch
// connected before the next, so the master's listen backlog is not what
// refuses them.
class IdleConnections {
 public:
  IdleConnections(int port, int count) {
    sockaddr_in master{};
    master.sin_family = AF_INET;
    master.sin_port = htons(static_cast<std::uint16_t>(port));
    master.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    constexpr int kBatch = 20;
    for (int first = 0; first < count; first += kBatch) {
      std::vector<pollfd> batch;
      for (int i = first; i < count && i < first + kBatch; ++i) {
        const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        REQUIRE(fd >= 0);
        const int rc = ::connect(fd, reinterpret_cast<sockaddr*>(&master), sizeof master);
        REQUIRE((rc == 0 || errno == EINPROGRESS));
        fds_.push_back(fd);
        batch.push_back({fd, POLLOUT, 0});
      }
      // Connected, or failed (then counted as never connected below).
      const auto deadline = Clock::now() + std::chrono::seconds(60);
      for (auto& item : batch) {
        while (Clock::now() < deadline) {
          item.revents = 0;
          if (::poll(&item, 1, 100) > 0) break;
        }
      }
    }
  }
  ~IdleConnections() {
    for (int fd : fds_)
      if (fd >= 0) ::close(fd);
  }
  IdleConnections(const IdleConnections&) = delete;
  IdleConnections& operator=(const IdleConnections&) = delete;

  struct Ends {
    std::size_t open = 0;
    std::size_t closed_by_master = 0;  // the end of the stream, or a reset
    std::size_t never_connected = 0;   // refused or timed out
  };
  /// Waits until none is open or the deadline passes.
  Ends WaitAllEnded(Clock::time_point deadline) {
    for (;;) {
      const Ends ends = Look();
      if (ends.open == 0 || Clock::now() >= deadline) return ends;
      std::vector<pollfd> items;
      for (int fd : fds_)
        if (fd >= 0) items.push_back({fd, POLLIN, 0});
      ::poll(items.data(), items.size(), 200);
    }
  }

 private:
  Ends Look() {
    for (std::size_t i = 0; i < fds_.size(); ++i) {
      if (fds_[i] < 0) continue;
      // The master's ZMTP greeting may come first: read past it.
      char buffer[512];
      ssize_t n;
      while ((n = ::recv(fds_[i], buffer, sizeof buffer, MSG_DONTWAIT)) > 0) {
      }
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOTCONN)) continue;
      if (n == 0 || errno == ECONNRESET || errno == EPIPE)
        ++ends_.closed_by_master;
      else
        ++ends_.never_connected;
      ::close(fds_[i]);
      fds_[i] = -1;
    }
    Ends ends = ends_;
    for (int fd : fds_) ends.open += fd >= 0;
    return ends;
  }

  std::vector<int> fds_;
  Ends ends_;
};

struct Master {
  Master() = default;
  Master(const Master&) = delete;
  Master& operator=(const Master&) = delete;
  ~Master() {
    if (go_fd >= 0) ::close(go_fd);
  }
  Child child;
  // Open for reading and writing, so that neither end waits for the other
  // and a master that died leaves the test nothing to wait for.
  int go_fd = -1;
  std::string endpoint;
  unsigned long nofile = 0;
};

// Starts the program with RLIMIT_NOFILE soft:hard and reads its first line.
void StartMaster(const std::string& dir, rlim_t soft, rlim_t hard, Master& m) {
  const std::string fifo = dir + "/go";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  m.go_fd = ::open(fifo.c_str(), O_RDWR | O_CLOEXEC);
  REQUIRE(m.go_fd >= 0);
  m.child = spawn({built_program("idle_connections"), std::to_string(soft), std::to_string(hard),
                   fifo},
                  {});
  const std::string line = read_line(m.child.stdout_fd, 120);
  char endpoint[256] = {};
  REQUIRE_MESSAGE(std::sscanf(line.c_str(), "endpoint %255s nofile %lu", endpoint, &m.nofile) == 2,
                  "first line: '" << line << "', stderr: " << read_all(m.child.stderr_fd, 5));
  m.endpoint = endpoint;
}

// Tells the program to make its second pool.
void Go(const Master& m) { REQUIRE(::write(m.go_fd, "go\n", 3) == 3); }

long SumOfSquares(int n) {
  long sum = 0;
  for (int i = 0; i < n; ++i) sum += long{i} * i;
  return sum;
}

}  // namespace

TEST_CASE("300 idle connections to the run's port do not stop a new pool of a master with 256 descriptors") {
  fiber::testing::TempDir dir;
  Master m;
  StartMaster(dir.path(), 256, 256, m);
  REQUIRE(m.endpoint.rfind("tcp://", 0) == 0);
  const int port = std::stoi(m.endpoint.substr(m.endpoint.rfind(':') + 1));
  {
    IdleConnections idle(port, 300);
    Go(m);
    CHECK(read_line(m.child.stdout_fd, 120) == "mapped " + std::to_string(SumOfSquares(100)));
    // The master closes every one, at once or when its handshake time is up.
    const auto ends = idle.WaitAllEnded(Clock::now() + std::chrono::seconds(180));
    CHECK_MESSAGE(ends.closed_by_master == 300, ends.open << " still open, "
                                                          << ends.never_connected
                                                          << " never connected");
  }
  const int status = wait_exit(m.child, 60);
  const std::string err = read_all(m.child.stderr_fd, 5);
  CHECK_MESSAGE(status == 0, "stderr: " << err);
  CHECK(err.find("Too many open files") == std::string::npos);
}

TEST_CASE("the run's master raises its soft descriptor limit to the hard limit") {
  rlimit mine{};
  REQUIRE(::getrlimit(RLIMIT_NOFILE, &mine) == 0);
  if (mine.rlim_max <= 256 || mine.rlim_max == RLIM_INFINITY) return;
  fiber::testing::TempDir dir;
  Master m;
  StartMaster(dir.path(), 256, mine.rlim_max, m);
  CHECK(m.nofile == mine.rlim_max);
  Go(m);
  CHECK(read_line(m.child.stdout_fd, 120).rfind("mapped ", 0) == 0);
  CHECK(wait_exit(m.child, 60) == 0);
}
