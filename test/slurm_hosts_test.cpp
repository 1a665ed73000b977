// Slurm on more than one host: the test hosts of test/slurm/up (network
// namespaces with their own address and host name, a slurmd each, the
// partition "hosts" spanning them), driven as a user would with the real
// fiber command and the profile test-slurm-hosts, whose master listens on
// the hosts' bridge. A host is stopped or cut off with test/test_hosts.sh,
// and brought back with test/slurm/up, as by hand. A manager on one host is
// called from a Pool task on another: in one hop, failing fast when its
// host is stopped, and through the master where the hosts cannot reach
// each other (test/programs/manager_hosts.cpp).
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "subprocess.hpp"
#include "support/fiber_command.hpp"
#include "support/test_slurm.hpp"

using fiber::testing::eventually;
using fiber::testing::Fiber;
using fiber::testing::JobsOf;
using fiber::testing::NothingLeft;
using fiber::testing::SlowSquaresOutput;
using fiber::testing::Slurm;
using fiber::testing::SlurmValue;

namespace {

// The tests' temporary directories (each Fiber's state, where a run's
// directory is) in the directory the test hosts share, as a home directory
// on a cluster's NFS: workers there write their logs into it.
[[maybe_unused]] const bool kSharedTemp = [] {
  const auto& env = fiber::testing::SlurmValues();
  if (const auto it = env.find("FIBER_SLURM_SHARED_DIR"); it != env.end())
    ::setenv("TMPDIR", it->second.c_str(), 1);
  return true;
}();

// fiber run of the test hosts' profile.
std::vector<std::string> RunArgs(std::vector<std::string> rest) {
  return fiber::testing::ProfileRun(SlurmValue("FIBER_SLURM_FIBER_CONFIG"), "test-slurm-hosts", std::move(rest));
}

// The test hosts, as up wrote them; fails unless there are at least two.
std::vector<std::string> Hosts() {
  std::istringstream in(SlurmValue("FIBER_SLURM_HOST_NAMES"));
  std::vector<std::string> hosts;
  for (std::string h; in >> h;) hosts.push_back(h);
  REQUIRE_MESSAGE(hosts.size() >= 2, "these tests need two test hosts: FIBER_SLURM_HOSTS=2 test/slurm/up");
  return hosts;
}

// Runs a shell script of the test scripts' (test/test_hosts.sh sourced);
// its exit status.
int HostsScript(const std::string& script, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"/bin/bash", "-c", ". " FIBER_TEST_DIR "/test_hosts.sh && " + script, "bash"};
  argv.insert(argv.end(), args.begin(), args.end());
  Child c = spawn(argv, {});
  const std::string out = read_all(c.stdout_fd, 120);
  const std::string err = read_all(c.stderr_fd, 120);
  const int status = wait_exit(c, 120);
  CHECK_MESSAGE(status == 0, script << ": " << out << err);
  return status;
}

// test/slurm/up again, with as many hosts as it made: it starts what is
// missing (a host removed, a slurmd killed) and leaves the rest running.
void BringBackHosts() {
  std::map<std::string, std::string> env = {{"FIBER_SLURM_HOSTS", std::to_string(Hosts().size())}};
  Child c = spawn({FIBER_TEST_DIR "/slurm/up"}, env);
  const std::string out = read_all(c.stdout_fd, 120);
  const std::string err = read_all(c.stderr_fd, 120);
  CHECK_MESSAGE(wait_exit(c, 120) == 0, "test/slurm/up: " << err);
}

// The node a running job runs on ("fiber-s1").
std::string NodeOf(const std::string& job) {
  std::string out = Slurm({"squeue", "--noheader", "--jobs=" + job, "--format=%N"});
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

// Starts slow_squares with 2 workers and m tasks on the hosts; once both
// workers are ready, the node of the worker w0 (the other's is another).
std::string StartOnBothHosts(Fiber& fiber, NothingLeft& check, Child* child, long m,
                             std::vector<std::string> flags = {}) {
  flags.push_back(built_program("slow_squares"));
  flags.push_back("2");
  flags.push_back(std::to_string(m));
  *child = fiber.Start(RunArgs(flags));
  REQUIRE(eventually([&] { return !fiber.Ps().empty(); }, 60));
  check.run_id = fiber.Ps()[0]["id"];
  REQUIRE(eventually([&] { return fiber.Ps()[0]["workers_ready"] == 2; }, 120));
  std::map<std::string, std::string> nodes;
  for (const auto& job : JobsOf(check.run_id)) nodes[job.worker_id] = NodeOf(job.job);
  REQUIRE(nodes.size() == 2);
  REQUIRE_MESSAGE(nodes["w0"] != nodes["w1"], "both workers on " << nodes["w0"]);
  return nodes["w0"];
}

}  // namespace

TEST_CASE("a Pool's workers run on two Slurm hosts and reach the master at its bridge address: every result once") {
  const std::vector<std::string> hosts = Hosts();
  Fiber fiber;
  NothingLeft check{fiber, ""};
  auto [status, out, err] = fiber.Run(RunArgs({built_program("slow_squares"), "2", "20", "hosts"}));
  CHECK_MESSAGE(status == 0, err);
  // Each task says the host name of the worker that ran it: both hosts'.
  CHECK(out == SlowSquaresOutput(20) + "hosts " + hosts[0] + " " + hosts[1] + "\n");
  check.run_id = fiber.Ps()[0]["id"];
  CHECK(JobsOf(check.run_id).size() == 2);
}

TEST_CASE("the test hosts are apart: a worker there sees none of its master's processes, memfds, /dev/shm or /tmp, and its data takes the connection") {
  const std::vector<std::string> hosts = Hosts();
  Fiber fiber;
  {
    NothingLeft check{fiber, ""};
    auto [status, out, err] = fiber.Run(RunArgs({built_program("host_view"), "2"}));
    REQUIRE_MESSAGE(status == 0, err);
    // And so a share comes over the connection, and 2 MiB items go back
    // through it, whole.
    CHECK(out == hosts[0] + " proc=0 memfd=0 shm=0 tmp=0 share=fetched\n" + hosts[1] +
                     " proc=0 memfd=0 shm=0 tmp=0 share=fetched\nitems 8 ok\n");
    check.run_id = fiber.Ps()[0]["id"];
  }
  // The same probe on the master's own machine (the node localhost, whose
  // slurmd runs beside the master) sees them all: it can tell.
  NothingLeft check{fiber, ""};
  auto [status, out, err] = fiber.Run(fiber::testing::ProfileRun(
      SlurmValue("FIBER_SLURM_FIBER_CONFIG"), "test-slurm", {built_program("host_view"), "1"}));
  REQUIRE_MESSAGE(status == 0, err);
  char host[256] = {};
  REQUIRE(::gethostname(host, sizeof host - 1) == 0);
  CHECK(out == std::string(host) + " proc=1 memfd=1 shm=1 tmp=1 share=mapped\nitems 4 ok\n");
  check.run_id = fiber.Ps()[0]["id"];
}

TEST_CASE("a Slurm host stopped mid-map: its worker is lost, its tasks run on the other host, every result once") {
  (void)Hosts();
  Fiber fiber;
  NothingLeft check{fiber, ""};
  Child child;
  const std::string stopped = StartOnBothHosts(fiber, check, &child, 40);
  // Its slurmd, the worker's job and the worker end; the host goes.
  HostsScript("host_down \"$1\"", {stopped});
  const std::string out = read_all(child.stdout_fd, 300);
  const std::string errors = read_all(child.stderr_fd, 30);
  CHECK_MESSAGE(wait_exit(child, 60) == 0, errors);
  CHECK(out == SlowSquaresOutput(40));
  CHECK_MESSAGE(errors.find("worker w0 lost") != std::string::npos, errors);
  // What Slurm would find itself after SlurmdTimeout (minutes): the node
  // is down, its jobs end. Then the host comes back.
  Slurm({"scontrol", "update", "nodename=" + stopped, "state=down", "reason=stopped by a test"});
  BringBackHosts();
}

TEST_CASE("a Slurm host cut off from the master: its worker is lost by the heartbeat timeout, the run ends on the other") {
  (void)Hosts();
  Fiber fiber;
  NothingLeft check{fiber, ""};
  Child child;
  // Slurm does not notice a node gone quiet for minutes (SlurmdTimeout):
  // only the worker's silence tells, after 3 s.
  const std::string cut = StartOnBothHosts(fiber, check, &child, 40, {"--heartbeat-timeout", "3", "--heartbeat-interval", "500ms"});
  HostsScript("host_link \"$1\" down", {cut});
  // Back once its worker is lost: Slurm then ends its job as it would.
  std::string errors;
  bool lost = false;
  for (int i = 0; i < 600 && !lost; ++i) {
    const std::string line = read_line(child.stderr_fd, 1);
    errors += line + "\n";
    lost = line.find("worker w0 lost") != std::string::npos;
  }
  HostsScript("host_link \"$1\" up", {cut});
  CHECK_MESSAGE(lost, errors);
  const std::string out = read_all(child.stdout_fd, 300);
  errors += read_all(child.stderr_fd, 30);
  CHECK_MESSAGE(wait_exit(child, 60) == 0, errors);
  CHECK(out == SlowSquaresOutput(40));
}

namespace {

// The host named on out's line "WHAT HOST" (manager_hosts' first lines).
std::string HostOf(const std::string& out, const std::string& what) {
  const auto at = out.find(what + " ");
  if (at == std::string::npos) return "";
  const auto start = at + what.size() + 1;
  return out.substr(start, out.find('\n', start) - start);
}

// Runs manager_hosts calls: its manager and its caller on two of the
// hosts, every result in order. What fiber ps RUN says then of the path
// of workers' calls to managers.
std::string CallsOnTwoHosts(const std::vector<std::string>& hosts) {
  Fiber fiber;
  NothingLeft check{fiber, ""};
  auto [status, out, err] = fiber.Run(RunArgs({built_program("manager_hosts"), "calls"}));
  REQUIRE_MESSAGE(status == 0, err);
  const std::string manager = HostOf(out, "manager"), caller = HostOf(out, "caller");
  CHECK_MESSAGE(manager != caller, out);
  CHECK(std::count(hosts.begin(), hosts.end(), manager) == 1);
  CHECK(std::count(hosts.begin(), hosts.end(), caller) == 1);
  std::string calls = "manager " + manager + "\ncaller " + caller + "\n";
  for (int i = 1; i <= 50; ++i) calls += std::to_string(i) + "\n";
  CHECK(out == calls);
  auto [ps_status, ps, ps_err] = fiber.Run({"ps", fiber.Ps()[0]["id"]});
  CHECK_MESSAGE(ps_status == 0, ps_err);
  const auto at = ps.find("Managers: ");
  return at == std::string::npos ? ps : ps.substr(at, ps.find('\n', at) - at);
}

// While it lives, each of two hosts refuses TCP connections to the other's
// address: a caller on one cannot reach a manager's endpoint on the other.
// Slurm's daemons talk only to its controller, on the bridge's address.
struct HostsApart {
  std::vector<std::string> hosts;
  explicit HostsApart(std::vector<std::string> h) : hosts(std::move(h)) { Set("on"); }
  ~HostsApart() { Set("off"); }
  void Set(const std::string& how) {
    HostsScript("host_block \"$1\" \"$2\" \"$3\" && host_block \"$2\" \"$1\" \"$3\"", {hosts[0], hosts[1], how});
  }
};

}  // namespace

TEST_CASE("a manager on one Slurm host is called from a Pool task on another in one hop: every result, in order") {
  CHECK(CallsOnTwoHosts(Hosts()) == "Managers: 0 calls from workers through the master (any others in one hop)");
}

TEST_CASE("a Slurm host stopped under a manager: a caller on another host gets WorkerLost for its call in flight and the next") {
  (void)Hosts();
  Fiber fiber;
  NothingLeft check{fiber, ""};
  Child child = fiber.Start(RunArgs({built_program("manager_hosts"), "lost"}));
  std::string out = read_line(child.stdout_fd, 300) + "\n";
  out += read_line(child.stdout_fd, 300) + "\n";
  const std::string manager = HostOf(out, "manager"), caller = HostOf(out, "caller");
  REQUIRE_MESSAGE((!manager.empty() && !caller.empty() && manager != caller), out);
  HostsScript("host_down \"$1\"", {manager});
  // The manager's connection closes with its process: no waiting for a
  // heartbeat, nor for Slurm.
  CHECK(read_line(child.stdout_fd, 60) == "lost 2");
  const std::string errors = read_all(child.stderr_fd, 60);
  CHECK_MESSAGE(wait_exit(child, 60) == 0, errors);
  Slurm({"scontrol", "update", "nodename=" + manager, "state=down", "reason=stopped by a test"});
  BringBackHosts();
}

TEST_CASE("a caller on a Slurm host that cannot reach the manager's host calls it through the master: every result, in order") {
  HostsApart apart(Hosts());
  CHECK(CallsOnTwoHosts(apart.hosts) == "Managers: 50 calls from workers through the master (a fallback)");
}
