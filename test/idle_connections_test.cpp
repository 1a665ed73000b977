// Idle TCP connections to the run's port, from a peer that never speaks: a
// master that may hold only 256 descriptors still makes a new pool, and
// closes every such connection; a pool starts whole while strangers keep
// such connections open from several addresses, or send CURVE HELLOs over
// new ones as fast as they can. The master is a real program
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

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "subprocess.hpp"
#include "support/hello_flood.hpp"
#include "support/idle_connections.hpp"
#include "support/temp_dir.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using fiber::testing::IdleConnections;

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

// Starts the program with RLIMIT_NOFILE soft:hard, its second pool of
// workers, and reads its first line.
void StartMaster(const std::string& dir, rlim_t soft, rlim_t hard, Master& m, int workers = 2) {
  const std::string fifo = dir + "/go";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  m.go_fd = ::open(fifo.c_str(), O_RDWR | O_CLOEXEC);
  REQUIRE(m.go_fd >= 0);
  m.child = spawn({built_program("idle_connections"), std::to_string(soft), std::to_string(hard),
                   fifo, std::to_string(workers)},
                  {});
  const std::string line = read_line(m.child.stdout_fd, 120);
  char endpoint[256] = {};
  REQUIRE_MESSAGE(std::sscanf(line.c_str(), "endpoint %255s nofile %lu", endpoint, &m.nofile) == 2,
                  "first line: '" << line << "', stderr: " << read_all(m.child.stderr_fd, 5));
  m.endpoint = endpoint;
}

// Tells the program to make its second pool, rounds times over.
void Go(const Master& m, int rounds = 1) {
  const std::string line = "go " + std::to_string(rounds) + "\n";
  REQUIRE(::write(m.go_fd, line.data(), line.size()) == static_cast<ssize_t>(line.size()));
}

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
    CHECK_MESSAGE(ends.closed_by_peer == 300, ends.open << " still open, "
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

namespace {

// Has the program make its second pool (8 workers, 100 squares) three times
// over, and checks each: the right sum, every worker connected and none lost
// (a replacement would have a number past the first eight the pool started).
void MapWholePools(Master& m) {
  constexpr int kRounds = 3;  // a worker turned away is lost only now and then
  Go(m, kRounds);
  for (int round = 0; round < kRounds; ++round) {
    CAPTURE(round);
    CHECK(read_line(m.child.stdout_fd, 300) == "mapped " + std::to_string(SumOfSquares(100)));
    std::istringstream line(read_line(m.child.stdout_fd, 360));
    std::string word;
    line >> word;
    CHECK(word == "workers");
    std::vector<int> numbers;
    for (int n; line >> n;) numbers.push_back(n);
    std::sort(numbers.begin(), numbers.end());
    REQUIRE(numbers.size() == 8);
    CHECK(numbers.back() - numbers.front() == 7);
  }
}

const std::vector<std::string> kStrangers = {"127.0.0.2", "127.0.0.3", "127.0.0.4"};

// The program held to 1024 descriptors, so that the master holds 256
// connections that have not proven the key, with pools of 8 workers; a
// flood is made against its port, then it must end well.
struct FloodedMaster {
  FloodedMaster() { StartMaster(dir.path(), 1024, 1024, m, 8); }
  int port() const { return std::stoi(m.endpoint.substr(m.endpoint.rfind(':') + 1)); }
  void CheckEnd() {
    const int status = wait_exit(m.child, 60);
    CHECK_MESSAGE(status == 0, "stderr: " << read_all(m.child.stderr_fd, 5));
  }
  fiber::testing::TempDir dir;
  Master m;
};

}  // namespace

// When each address could hold half of the places, two flooding addresses
// left the run's workers none.
TEST_CASE("pools of 8 local workers start whole and map while strangers flood the run's port from three addresses") {
  FloodedMaster f;
  {
    fiber::testing::ConnectionFlood flood(f.port(), 100, kStrangers);
    MapWholePools(f.m);
  }
  f.CheckEnd();
}

// Each HELLO costs the master an X25519 on its I/O thread and its sender a
// connection; the master's key is the run's secret, so no stranger gets
// further (wire/admission.hpp).
TEST_CASE("pools of 8 local workers start whole and map while strangers send CURVE HELLOs from three addresses as fast as they can") {
  FloodedMaster f;
  {
    fiber::testing::HelloFlood flood(f.port(), 20, kStrangers);
    MapWholePools(f.m);
    // The flood reached the handshake: the master read HELLOs and closed them.
    CHECK(flood.refused() > 0);
  }
  f.CheckEnd();
}
