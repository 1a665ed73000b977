// Idle TCP connections to the run's port, from a peer that never speaks: the
// master, however few descriptors it may hold, keeps few of them and none
// for long, so its pools keep working. The master is a real program
// (programs/idle_connections.cpp) limited to 256 descriptors, soft and hard.
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
#include <filesystem>
#include <string>
#include <vector>

#include "master/admission.hpp"
#include "subprocess.hpp"

namespace {

using Clock = std::chrono::steady_clock;

// libzmq's own limit on a handshake; the master must not wait that long.
constexpr std::chrono::seconds kLibzmqHandshakeDefault{30};

// Connections that never speak, each started without waiting for it.
class IdleConnections {
 public:
  IdleConnections(int port, int count) {
    sockaddr_in master{};
    master.sin_family = AF_INET;
    master.sin_port = htons(static_cast<std::uint16_t>(port));
    master.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    for (int i = 0; i < count; ++i) {
      const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
      REQUIRE(fd >= 0);
      const int rc = ::connect(fd, reinterpret_cast<sockaddr*>(&master), sizeof master);
      REQUIRE((rc == 0 || errno == EINPROGRESS));
      fds_.push_back(fd);
    }
  }
  ~IdleConnections() {
    for (int fd : fds_)
      if (fd >= 0) ::close(fd);
  }

  /// Waits until at most most of them are still open (the master has
  /// closed the others) or until deadline; returns how many are open.
  std::size_t WaitOpenAtMost(std::size_t most, Clock::time_point deadline) {
    for (;;) {
      const std::size_t open = Open();
      if (open <= most || Clock::now() >= deadline) return open;
      std::vector<pollfd> items;
      for (int fd : fds_)
        if (fd >= 0) items.push_back({fd, POLLIN, 0});
      ::poll(items.data(), items.size(), 100);
    }
  }

 private:
  // Those not yet seen closed; a connection is closed once a read says so.
  std::size_t Open() {
    std::size_t open = 0;
    for (int& fd : fds_) {
      if (fd < 0) continue;
      char byte;
      const ssize_t n = ::recv(fd, &byte, 1, MSG_DONTWAIT);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOTCONN)) {
        ::close(fd);
        fd = -1;
      } else {
        ++open;
      }
    }
    return open;
  }

  std::vector<int> fds_;
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
  const std::string line = read_line(m.child.stdout_fd);
  char endpoint[256] = {};
  REQUIRE_MESSAGE(std::sscanf(line.c_str(), "endpoint %255s nofile %lu", endpoint, &m.nofile) == 2,
                  "first line: '" << line << "', stderr: " << read_all(m.child.stderr_fd, 5));
  m.endpoint = endpoint;
}

// Tells the program to make its second pool.
void Go(const Master& m) {
  REQUIRE(::write(m.go_fd, "go\n", 3) == 3);
}

struct TempDir {
  TempDir() {
    char pattern[] = "/tmp/fiber-idle-XXXXXX";
    REQUIRE(::mkdtemp(pattern) != nullptr);
    path = pattern;
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string path;
};

long SumOfSquares(int n) {
  long sum = 0;
  for (int i = 0; i < n; ++i) sum += long{i} * i;
  return sum;
}

}  // namespace

TEST_CASE("300 idle connections to the run's port do not stop a master with 256 descriptors") {
  TempDir dir;
  Master m;
  StartMaster(dir.path, 256, 256, m);
  REQUIRE(m.endpoint.rfind("tcp://", 0) == 0);
  const int port = std::stoi(m.endpoint.substr(m.endpoint.rfind(':') + 1));
  const auto start = Clock::now();
  {
    IdleConnections idle(port, 300);
    // Closed at once, not after a handshake time: well before libzmq's.
    const std::size_t held =
        idle.WaitOpenAtMost(fiber::master::kMaxUnprovenPerAddress, start + kLibzmqHandshakeDefault * 2 / 3);
    CHECK_MESSAGE(held <= fiber::master::kMaxUnprovenPerAddress,
                  "the master still holds " << held << " of 300 connections that never spoke");
    Go(m);
    const std::string mapped = read_line(m.child.stdout_fd, 120);
    CHECK(mapped == "mapped " + std::to_string(SumOfSquares(100)));
    // Those it held it closes when their handshake time is up, not libzmq's.
    const std::size_t left =
        idle.WaitOpenAtMost(0, start + fiber::master::kHandshakeTimeout + kLibzmqHandshakeDefault / 3);
    CHECK_MESSAGE(left == 0, left << " connections that never spoke are still open");
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
  TempDir dir;
  Master m;
  StartMaster(dir.path, 256, mine.rlim_max, m);
  CHECK(m.nofile == mine.rlim_max);
  Go(m);
  CHECK(read_line(m.child.stdout_fd, 120).rfind("mapped ", 0) == 0);
  CHECK(wait_exit(m.child, 60) == 0);
}
