// Whole processes: workers never outlive their master, and a worker or master
// started with bad settings says so in one line and exits non-zero.
#include <doctest/doctest.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "process_probe.hpp"
#include "subprocess.hpp"
#include "support/temp_dir.hpp"

namespace {

std::vector<long> parse_pids(const std::string& line) {
  std::istringstream in(line);
  std::vector<long> pids;
  for (long pid; in >> pid;) pids.push_back(pid);
  return pids;
}

bool all_gone_within(const std::vector<long>& pids, int seconds) {
  for (int i = 0; i < seconds * 20; ++i) {
    bool any = false;
    for (long pid : pids) any = any || process_alive(pid);
    if (!any) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

}  // namespace

TEST_CASE("SIGKILL of the master leaves no worker behind") {
  Child master = spawn({built_program("hold_pool"), "3"}, {});
  const auto pids = parse_pids(read_line(master.stdout_fd));
  REQUIRE(pids.size() == 3);
  kill(master.pid, SIGKILL);
  CHECK(wait_exit(master) == 128 + SIGKILL);
  CHECK(all_gone_within(pids, 30));
}

namespace {
// A TCP socket bound to a free loopback port, which goes to *port.
int bound_socket(int* port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  REQUIRE(bind(fd, reinterpret_cast<sockaddr*>(&addr), len) == 0);
  REQUIRE(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  *port = ntohs(addr.sin_port);
  return fd;
}

// True when process pid holds a TCP connection to 127.0.0.N:port: one of
// its descriptors is a socket that /proc/net/tcp lists with that peer.
bool connected_to_port(long pid, int port, int loopback_n = 1) {
  std::set<std::string> inodes;
  const std::string fds = "/proc/" + std::to_string(pid) + "/fd";
  std::error_code ec;
  for (const auto& fd : std::filesystem::directory_iterator(fds, ec)) {
    const std::string target = std::filesystem::read_symlink(fd.path(), ec).string();
    if (target.rfind("socket:[", 0) == 0) inodes.insert(target.substr(8, target.size() - 9));
  }
  char peer[16];
  std::snprintf(peer, sizeof peer, "%02X00007F:%04X", loopback_n, port);
  std::ifstream tcp("/proc/" + std::to_string(pid) + "/net/tcp");
  std::string line;
  std::getline(tcp, line);  // the header
  while (std::getline(tcp, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
    fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >>
        timeout >> inode;
    if (remote == peer && inodes.count(inode)) return true;
  }
  return false;
}
}  // namespace

TEST_CASE("FIBER_LISTEN_PORT fixes the run's one port") {
  int port = 0;
  close(bound_socket(&port));  // free now
  Child master = spawn({built_program("hold_pool"), "2"}, {{"FIBER_LISTEN_PORT", std::to_string(port)}});
  const auto pids = parse_pids(read_line(master.stdout_fd));
  REQUIRE(pids.size() == 2);
  for (long pid : pids) CHECK(connected_to_port(pid, port));
  kill(master.pid, SIGKILL);
  wait_exit(master);
  CHECK(all_gone_within(pids, 30));
}

TEST_CASE("workers connect to advertise_host, while the master listens on listen_host") {
  int port = 0;
  close(bound_socket(&port));  // free now
  Child master = spawn({built_program("hold_pool"), "2"}, {{"FIBER_LISTEN_PORT", std::to_string(port)},
                                                          {"FIBER_LISTEN_HOST", "0.0.0.0"},
                                                          {"FIBER_ADVERTISE_HOST", "127.0.0.3"}});
  const auto pids = parse_pids(read_line(master.stdout_fd));
  REQUIRE(pids.size() == 2);
  for (long pid : pids) CHECK(connected_to_port(pid, port, 3));
  kill(master.pid, SIGKILL);
  wait_exit(master);
  CHECK(all_gone_within(pids, 30));
}

TEST_CASE("a port already taken is a clear error, not a hang") {
  int port = 0;
  const int fd = bound_socket(&port);
  REQUIRE(listen(fd, 1) == 0);
  Child master = spawn({built_program("hold_pool"), "1"}, {{"FIBER_LISTEN_PORT", std::to_string(port)}});
  const std::string err = read_all(master.stderr_fd);
  CHECK(wait_exit(master) != 0);
  CHECK_MESSAGE(err.find("cannot listen on tcp://127.0.0.1:" + std::to_string(port)) != std::string::npos, err);
  close(fd);
}

namespace {
// Starts hold_pool with args, SIGSTOPs it once its workers are up (SIGSTOP
// keeps the master process alive, so only heartbeats can tell), and checks
// every worker leaves on its own, saying why.
void check_workers_leave_stopped_master(const std::vector<std::string>& args) {
  std::vector<std::string> argv{built_program("hold_pool")};
  argv.insert(argv.end(), args.begin(), args.end());
  Child master = spawn(argv, {{"FIBER_HEARTBEAT_INTERVAL", "0.2"}, {"FIBER_HEARTBEAT_TIMEOUT", "1.5"}});
  const auto pids = parse_pids(read_line(master.stdout_fd));
  REQUIRE(pids.size() == 2);
  kill(master.pid, SIGSTOP);
  CHECK(all_gone_within(pids, 30));
  kill(master.pid, SIGKILL);
  kill(master.pid, SIGCONT);
  wait_exit(master);
  CHECK(read_all(master.stderr_fd).find("lost the master") != std::string::npos);
}
}  // namespace

TEST_CASE("idle workers of a master that stops answering exit on their own") {
  check_workers_leave_stopped_master({"2"});
}

TEST_CASE("a worker busy with a long task exits when its master stops answering") {
  // The serve loop is inside the task; only the connection watch can tell.
  check_workers_leave_stopped_master({"2", "busy"});
}

namespace {
const std::string kKey = "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7";  // a valid Z85 key
const std::map<std::string, std::string> kGood = {
    {"FIBER_ROLE", "worker"},        {"FIBER_MASTER_ENDPOINT", "tcp://127.0.0.1:1"},
    {"FIBER_WORKER_ID", "w0"},
    {"FIBER_CLIENT_KEY", kKey},      {"FIBER_HEARTBEAT_INTERVAL", "0.5"},
    {"FIBER_HEARTBEAT_TIMEOUT", "5"}, {"FIBER_START_TIMEOUT", "60"},
    {"FIBER_RUN_ID", "test"},
};

void check_refused(const std::string& var, const std::string& value, const std::string& says) {
  auto env = kGood;
  env[var] = value;
  Child worker = spawn({built_program("hold_pool")}, env);
  const std::string err = read_all(worker.stderr_fd);
  CHECK(wait_exit(worker) == 2);
  CHECK(err.find(says) != std::string::npos);
  CHECK(std::count(err.begin(), err.end(), '\n') == 1);  // one line
  CHECK(read_all(worker.stdout_fd).empty());             // main never ran
}
}  // namespace

TEST_CASE("a worker with missing or garbage FIBER_ settings exits with one clear line") {
  check_refused("FIBER_MASTER_ENDPOINT", "", "FIBER_MASTER_ENDPOINT is not set");
  check_refused("FIBER_MASTER_ENDPOINT", "udp://nowhere", "FIBER_MASTER_ENDPOINT='udp://nowhere' is not an endpoint");
  check_refused("FIBER_MASTER_ENDPOINT", "tcp://127.0.0.1:99999", "is not an endpoint");
  check_refused("FIBER_WORKER_ID", "", "FIBER_WORKER_ID is not set");
  check_refused("FIBER_CLIENT_KEY", std::string(40, '"'), "FIBER_CLIENT_KEY is not a 40-character");
  check_refused("FIBER_HEARTBEAT_INTERVAL", "", "FIBER_HEARTBEAT_INTERVAL is not set");
  check_refused("FIBER_HEARTBEAT_TIMEOUT", "soon", "FIBER_HEARTBEAT_TIMEOUT='soon' is not a duration");
  check_refused("FIBER_HEARTBEAT_TIMEOUT", "0.6",
                "heartbeat_timeout (0.6 s, from FIBER_HEARTBEAT_TIMEOUT) must be more than twice "
                "heartbeat_interval (0.5 s, from FIBER_HEARTBEAT_INTERVAL)");
  check_refused("FIBER_START_TIMEOUT", "", "FIBER_START_TIMEOUT is not set");
  check_refused("FIBER_RUN_ID", "", "FIBER_RUN_ID is not set");
  check_refused("FIBER_PARENT_PID", "12abc", "FIBER_PARENT_PID='12abc' is not a process id");
  check_refused("FIBER_PARENT_PID", "-5", "FIBER_PARENT_PID='-5' is not a process id");
}

TEST_CASE("a worker that cannot reach its master gives up after FIBER_START_TIMEOUT") {
  auto env = kGood;
  env["FIBER_MASTER_ENDPOINT"] = "tcp://127.0.0.1:9";  // nothing listens on the discard port
  env["FIBER_START_TIMEOUT"] = "1.5";
  Child worker = spawn({built_program("hold_pool")}, env);
  const std::string err = read_all(worker.stderr_fd);
  CHECK(wait_exit(worker) == 1);
  CHECK_MESSAGE(err.find("fiber worker w0: error: ") == 0, err);
  CHECK_MESSAGE(err.find("for 1.5 s); exiting") != std::string::npos, err);
}

TEST_CASE("the client key never appears in a worker's error message") {
  auto env = kGood;
  env["FIBER_CLIENT_KEY"] = "secret" + std::string(34, '~');  // 40 characters, not Z85
  Child worker = spawn({built_program("hold_pool")}, env);
  const std::string err = read_all(worker.stderr_fd);
  CHECK(wait_exit(worker) == 2);
  CHECK(err.find("secret") == std::string::npos);
}

TEST_CASE("a master with bad settings says which one and exits") {
  Child master = spawn({built_program("hold_pool")}, {{"FIBER_HEARTBEAT_TIMEOUT", "soon"}});
  const std::string err = read_all(master.stderr_fd);
  CHECK(wait_exit(master) == 2);
  CHECK(err == "fiber: error: FIBER_HEARTBEAT_TIMEOUT='soon' is not a duration such as 10, 10s, 500ms, 2m or 1h (a bare number is seconds)\n");
}

TEST_CASE("a master started beside a bad fiber.yaml exits naming the file, line and column") {
  fiber::testing::TempDir dir;
  const std::string file = dir.write("fiber.yaml", "prefetch: 2\nheartbeat_timout: 3\n");
  Child master = spawn({built_program("hold_pool")}, {{"XDG_CONFIG_HOME", dir.path()}}, dir.path());
  const std::string err = read_all(master.stderr_fd);
  CHECK(wait_exit(master) == 2);
  CHECK(err == "fiber: error: " + file +
                   ":2:1: unknown key 'heartbeat_timout' (did you mean 'heartbeat_timeout'?)\n");
}

TEST_CASE("the quick-start example estimates pi") {
  Child pi = spawn({built_program("../examples/pi")}, {});
  const std::string out = read_all(pi.stdout_fd, 300);
  CHECK(wait_exit(pi, 300) == 0);
  CHECK(out.rfind("pi is about 3.14", 0) == 0);
}
