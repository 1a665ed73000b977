// The fiber command as users drive it from a shell: the real binary, real
// programs, real signals; every run's records in a directory of the test's.
#include <doctest/doctest.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "process_probe.hpp"
#include "subprocess.hpp"
#include "support/fiber_command.hpp"
#include "support/temp_dir.hpp"

using fiber::testing::eventually;
using fiber::testing::Fiber;
using fiber::testing::TempDir;

namespace {

// fiber run (with options) of a shell that sets trap, says "ready" once it
// has, and loops until a signal ends it.
Child StartTrapping(Fiber& fiber, const std::string& trap, std::vector<std::string> options = {}) {
  options.insert(options.begin(), "run");
  for (const char* arg : {"sh", "-c"}) options.push_back(arg);
  options.push_back("trap " + trap + "; echo ready; while :; do sleep 0.1; done");
  Child run = fiber.Start(options);
  REQUIRE(read_line(run.stdout_fd) == "ready");
  return run;
}

bool group_gone(long pgid) { return ::kill(-static_cast<pid_t>(pgid), 0) != 0; }

}  // namespace

TEST_CASE("fiber run passes the program's stdout through and returns its exit status") {
  Fiber fiber;
  auto [status, out, err] = fiber.Run({"run", "sh", "-c", "echo out; echo err >&2; exit 3"});
  CHECK(status == 3);
  CHECK(out == "out\n");
  CHECK(err.find("err\n") != std::string::npos);
  CHECK(err.find("fiber: run ") != std::string::npos);
  auto [quiet_status, quiet_out, quiet_err] = fiber.Run({"run", "-q", "sh", "-c", "echo out"});
  CHECK(quiet_status == 0);
  CHECK(quiet_out == "out\n");
  CHECK(quiet_err.empty());
}

TEST_CASE("workers' output goes to stderr with their id, never to the program's stdout") {
  Fiber fiber;
  auto [status, out, err] = fiber.Run({"run", built_program("chatty_pool")});
  CHECK(status == 0);
  CHECK(out == "result 10\nresult 20\nresult 30\nresult 40\n");
  for (int x = 1; x <= 4; ++x) {
    const bool said = err.find("] worker says " + std::to_string(x) + "\n") != std::string::npos;
    const bool warned = err.find("] worker warns " + std::to_string(x) + "\n") != std::string::npos;
    CHECK_MESSAGE(said, err);
    CHECK_MESSAGE(warned, err);
  }
  CHECK(err.find("\n[w") != std::string::npos);  // whichever worker ran them
  CHECK(err.find("workers ready") == std::string::npos);  // no progress into a pipe
  // And the run's logs keep them.
  const auto runs = fiber.Ps();
  REQUIRE(runs.size() == 1);
  auto [logs_status, logs, logs_err] = fiber.Run({"logs", "--all", runs[0]["id"]});
  CHECK(logs_status == 0);
  CHECK(logs.find("[master] ") == std::string::npos);  // the master said nothing on stderr
  CHECK(logs.find("] worker says 1\n") != std::string::npos);
  CHECK(logs.find("[w") == 0);
}

TEST_CASE("a reader that stops early ends the program by SIGPIPE, and nothing is left") {
  Fiber fiber;
  Child run = fiber.Start({"run", "-q", "seq", "1", "100000000"});
  CHECK(read_line(run.stdout_fd) == "1");
  ::close(run.stdout_fd);
  CHECK(wait_exit(run, 120) == 128 + SIGPIPE);
  const auto runs = fiber.Ps();
  REQUIRE(runs.size() == 1);
  CHECK(runs[0]["state"] == "exited");
  CHECK(runs[0]["exit_status"] == 128 + SIGPIPE);
}

TEST_CASE("the launcher's own failures have docker run's statuses") {
  Fiber fiber;
  TempDir dir;
  std::ofstream(dir.path() + "/not-executable") << "#!/bin/sh\n";
  auto [missing, out1, err1] = fiber.Run({"run", "/no/such/program"});
  CHECK(missing == 127);
  CHECK(err1.find("fiber: error: /no/such/program: program not found") != std::string::npos);
  auto [not_on_path, out2, err2] = fiber.Run({"run", "no-such-program-anywhere"});
  CHECK(not_on_path == 127);
  auto [cannot, out3, err3] = fiber.Run({"run", dir.path() + "/not-executable"});
  CHECK(cannot == 126);
  CHECK(err3.find("not an executable file") != std::string::npos);
  auto [bad_flag, out4, err4] = fiber.Run({"run", "--prefetch", "0", "true"});
  CHECK(bad_flag == 125);
  CHECK(err4.find("--prefetch='0' is not a whole number from 1 to 256") != std::string::npos);
  for (const char* bad : {"0", "-2", "four", "2.5"}) {
    auto [status, out, err] = fiber.Run({"run", "--workers-per-job", bad, "true"});
    CHECK(status == 125);
    CHECK_MESSAGE(err.find("--workers-per-job='" + std::string(bad) + "' is not a whole number from 1 to 4096") !=
                      std::string::npos,
                  err);
  }
  auto [empty, out_empty, err_empty] = fiber.Run({"run", "--workers-per-job", "", "true"});
  CHECK(empty == 125);
  CHECK_MESSAGE(err_empty.find("--workers-per-job is empty") != std::string::npos, err_empty);
  auto [no_program, out5, err5] = fiber.Run({"run"});
  CHECK(no_program == 125);
  auto [unknown, out6, err6] = fiber.Run({"frobnicate"});
  CHECK(unknown == 125);
  auto [killed, out7, err7] = fiber.Run({"run", "sh", "-c", "kill -9 $$"});
  CHECK(killed == 128 + SIGKILL);
}

TEST_CASE("the first Ctrl-C is forwarded and the program stops as it chooses") {
  Fiber fiber;
  Child run = StartTrapping(fiber, "'echo stopping; exit 5' INT");
  ::kill(run.pid, SIGINT);
  CHECK(read_line(run.stdout_fd) == "stopping");
  CHECK(wait_exit(run, 120) == 5);
}

TEST_CASE("a second Ctrl-C ends a program that does not stop") {
  Fiber fiber;
  Child run = StartTrapping(fiber, "'' INT");
  ::kill(run.pid, SIGINT);
  // Once fiber has taken the first (two pending signals would be one).
  std::string line;
  while ((line = read_line(run.stderr_fd)).find("stopping the run") == std::string::npos)
    REQUIRE_MESSAGE(!line.empty(), "fiber never said it was stopping the run");
  ::kill(run.pid, SIGINT);
  CHECK(read_line(run.stderr_fd) == "fiber: ending the run now");
  CHECK(wait_exit(run, 120) == 128 + SIGKILL);
}

TEST_CASE("Ctrl-C stops the program and every worker it started") {
  Fiber fiber;
  Child run = fiber.Start({"run", built_program("hold_pool"), "2"});
  const std::string pids = read_line(run.stdout_fd);
  REQUIRE(!pids.empty());
  const long master = fiber.Record(fiber.Ps()[0]["id"])["master_pid"];
  ::kill(run.pid, SIGINT);
  CHECK(wait_exit(run, 120) == 128 + SIGINT);
  CHECK(eventually([&] { return group_gone(master); }));
  for (std::size_t at = 0, end; (end = pids.find(' ', at)) != std::string::npos; at = end + 1)
    CHECK(eventually([&] { return !process_alive(std::stol(pids.substr(at, end - at))); }));
}

TEST_CASE("a program that ignores the stop is ended after the grace period") {
  Fiber fiber;
  Child run = StartTrapping(fiber, "'' TERM", {"--grace", "0.5"});
  ::kill(run.pid, SIGTERM);
  CHECK(wait_exit(run, 120) == 128 + SIGKILL);
  std::string err = read_all(run.stderr_fd);
  CHECK(err.find("did not stop within") != std::string::npos);
}

TEST_CASE("--detach, then ps, logs and stop by name") {
  Fiber fiber;
  auto [status, out, err] = fiber.Run({"run", "--detach", "--name", "held", built_program("hold_pool"), "2"});
  REQUIRE(status == 0);
  const std::string id = out.substr(0, out.find('\n'));
  CHECK(id.size() == 12);
  nlohmann::json runs;
  REQUIRE(eventually([&] {
    runs = fiber.Ps();
    return runs.size() == 1 && runs[0]["workers_ready"] == 2;
  }));
  CHECK(runs[0]["id"] == id);
  CHECK(runs[0]["name"] == "held");
  CHECK(runs[0]["state"] == "running");
  CHECK(runs[0]["workers_wanted"] == 2);
  CHECK(fiber.Record(id)["settings"]["prefetch"] == "2");  // the run's resolved settings
  auto [listed, table, table_err] = fiber.Run({"ps"});
  CHECK(table.find("held") != std::string::npos);
  CHECK(table.find("2/2") != std::string::npos);
  // The master's stdout, the pids of its workers, is in its log.
  auto [logs_status, logs, logs_err] = fiber.Run({"logs", id.substr(0, 5)});
  CHECK(logs_status == 0);
  CHECK(logs.find(' ') != std::string::npos);
  const long master = fiber.Record(id)["master_pid"];
  auto [stop_status, stop_out, stop_err] = fiber.Run({"stop", "held"});
  CHECK(stop_status == 0);
  runs = fiber.Ps();
  CHECK(runs[0]["state"] == "exited");
  CHECK(runs[0]["exit_status"] == 128 + SIGTERM);
  CHECK(eventually([&] { return group_gone(master); }));
  auto [again, again_out, again_err] = fiber.Run({"logs", "nothing-like-it"});
  CHECK(again != 0);
  CHECK(again_err.find("no run has the id or name 'nothing-like-it'") != std::string::npos);
}

TEST_CASE("logs -f follows a run until it ends") {
  Fiber fiber;
  auto [status, out, err] = fiber.Run(
      {"run", "--detach", "--name", "counter", "sh", "-c", "for i in 1 2 3; do echo line $i; sleep 0.2; done"});
  REQUIRE(status == 0);
  auto [logs_status, logs, logs_err] = fiber.Run({"logs", "-f", "counter"});
  CHECK(logs_status == 0);
  CHECK(logs == "line 1\nline 2\nline 3\n");
}

TEST_CASE("a run whose master and launcher died is shown as such, and its workers are gone") {
  Fiber fiber;
  auto [status, out, err] = fiber.Run({"run", "--detach", built_program("hold_pool"), "2"});
  REQUIRE(status == 0);
  const std::string id = out.substr(0, out.find('\n'));
  REQUIRE(eventually([&] { return fiber.Ps()[0]["workers_ready"] == 2; }));
  const auto record = fiber.Record(id);
  fiber::testing::KillRecorded(record["supervisor_pid"].get<long>());
  fiber::testing::KillRecorded(record["master_pid"].get<long>());
  CHECK(eventually([&] { return fiber.Ps()[0]["state"] == "master died"; }));
  CHECK(eventually([&] { return group_gone(record["master_pid"].get<long>()); }));
  auto [listed, running, running_err] = fiber.Run({"ps"});
  CHECK(running.find(id) == std::string::npos);  // not among the running
}

TEST_CASE("settings: flags over environment over project file over defaults, each source named") {
  Fiber fiber;
  TempDir project;
  std::ofstream(project.path() + "/fiber.yaml") << "prefetch: 4\nheartbeat_timeout: 9\nlisten_port: 7000\n";
  const std::string inner = project.dir("deeper/still");
  fiber.env["FIBER_HEARTBEAT_TIMEOUT"] = "8";
  auto [status, out, err] = fiber.Run({"config", "show", "--listen-port", "7100"}, inner);
  REQUIRE_MESSAGE(status == 0, err);
  auto line_of = [&](const std::string& key) {
    const auto at = out.find(key);
    return at == std::string::npos ? std::string() : out.substr(at, out.find('\n', at) - at);
  };
  CHECK(line_of("prefetch").find(project.path() + "/fiber.yaml:1:11") != std::string::npos);
  CHECK(line_of("heartbeat_timeout").find("FIBER_HEARTBEAT_TIMEOUT") != std::string::npos);
  CHECK(line_of("listen_port").find("7100") != std::string::npos);
  CHECK(line_of("listen_port").find("--listen-port") != std::string::npos);
  CHECK(line_of("backend").find("default") != std::string::npos);
  auto [as_json, json_out, json_err] = fiber.Run({"config", "show", "--json", "--listen-port", "7100"}, inner);
  REQUIRE(as_json == 0);
  const auto settings = nlohmann::json::parse(json_out);
  CHECK(settings["prefetch"]["value"] == "4");
  CHECK(settings["listen_port"]["source"] == "--listen-port");
  // fiber run --dry-run resolves the same and starts nothing.
  auto [dry, dry_out, dry_err] = fiber.Run({"run", "--dry-run", "--listen-port", "7100", "true"}, inner);
  CHECK(dry == 0);
  CHECK(dry_out == out);
  CHECK(fiber.Ps().empty());
}

TEST_CASE("a bad settings file is one error naming file, line and column; exit 125") {
  Fiber fiber;
  TempDir project;
  std::ofstream(project.path() + "/fiber.yaml") << "prefetch: 4\nheartbeat_timout: 9\n";
  auto [status, out, err] = fiber.Run({"run", "true"}, project.path());
  CHECK(status == 125);
  CHECK(err == "fiber: error: " + project.path() +
                   "/fiber.yaml:2:1: unknown key 'heartbeat_timout' (did you mean "
                   "'heartbeat_timeout'?)\n");
  auto [profile, pout, perr] = fiber.Run({"config", "show", "--profile", "nope"}, project.path());
  CHECK(profile == 125);
  CHECK(fiber.Ps().empty());
}

TEST_CASE("fiber init writes a starter file that reads back as the defaults, once") {
  Fiber fiber;
  TempDir project;
  auto [status, out, err] = fiber.Run({"init"}, project.path());
  CHECK(status == 0);
  auto [show, shown, show_err] = fiber.Run({"config", "show"}, project.path());
  CHECK(show == 0);
  CHECK(shown.find(".yaml") == std::string::npos);  // every value a default
  auto [again, again_out, again_err] = fiber.Run({"init"}, project.path());
  CHECK(again == 125);
  CHECK(again_err.find("it exists already") != std::string::npos);
}

TEST_CASE("on a terminal, stderr shows workers ready out of wanted while they start") {
  Fiber fiber;
  int terminal = -1, side = -1;
  REQUIRE(::openpty(&terminal, &side, nullptr, nullptr, nullptr) == 0);
  int out[2];
  REQUIRE(::pipe(out) == 0);
  const pid_t pid = fiber.StartWithStderr({"run", built_program("hold_pool"), "2", "slow"}, side, out[1]);
  ::close(side);
  ::close(out[1]);
  CHECK(!read_line(out[0], 120).empty());  // all ready: hold_pool prints its workers
  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ::close(out[0]);
  std::string shown;
  char buf[4096];
  for (ssize_t n; (n = ::read(terminal, buf, sizeof buf)) > 0;) shown.append(buf, static_cast<std::size_t>(n));
  ::close(terminal);
  CHECK_MESSAGE(shown.find("fiber: workers ready 0/2") != std::string::npos, shown);
  CHECK(shown.find("\r\033[K") != std::string::npos);  // and cleared
}

TEST_CASE("stop --force ends a run and its workers at once; logs --worker shows one worker") {
  Fiber fiber;
  auto [status, out, err] = fiber.Run({"run", "--detach", "--name", "loud", built_program("chatty_pool")});
  REQUIRE(status == 0);
  REQUIRE(eventually([&] { return fiber.Ps()[0]["state"] == "exited"; }));
  auto [one, worker_log, one_err] = fiber.Run({"logs", "--worker", "w0", "loud"});
  CHECK(one == 0);
  CHECK(worker_log.find("[w") == std::string::npos);  // one worker's own lines, unprefixed
  auto [none, none_out, none_err] = fiber.Run({"logs", "--worker", "w99", "loud"});
  CHECK(none != 0);
  CHECK(none_err.find("has no worker 'w99'") != std::string::npos);

  auto [held, held_out, held_err] = fiber.Run({"run", "--detach", "--name", "held", built_program("hold_pool"), "2"});
  REQUIRE(held == 0);
  const std::string id = held_out.substr(0, held_out.find('\n'));
  REQUIRE(eventually([&] {
    for (const auto& run : fiber.Ps())
      if (run["id"] == id) return run["workers_ready"] == 2;
    return false;
  }));
  const long master = fiber.Record(id)["master_pid"];
  auto [stopped, stop_out, stop_err] = fiber.Run({"stop", "--force", id});
  CHECK(stopped == 0);
  CHECK(eventually([&] { return group_gone(master); }));
  for (const auto& run : fiber.Ps())
    if (run["id"] == id) CHECK(run["exit_status"] == 128 + SIGKILL);
}

TEST_CASE("a launcher killed outright takes its program and workers with it") {
  Fiber fiber;
  Child run = fiber.Start({"run", built_program("hold_pool"), "2"});
  const std::string pids = read_line(run.stdout_fd);
  REQUIRE(!pids.empty());
  const long master = fiber.Record(fiber.Ps()[0]["id"])["master_pid"];
  ::kill(run.pid, SIGKILL);
  CHECK(wait_exit(run) == 128 + SIGKILL);
  CHECK(eventually([&] { return group_gone(master); }));
  for (std::size_t at = 0, end; (end = pids.find(' ', at)) != std::string::npos; at = end + 1)
    CHECK(eventually([&] { return !process_alive(std::stol(pids.substr(at, end - at))); }));
  CHECK(eventually([&] { return fiber.Ps()[0]["state"] == "master died"; }));
}

TEST_CASE("sizes and other flag values are checked before anything starts") {
  Fiber fiber;
  auto [memory, out1, err1] = fiber.Run({"run", "--memory", "12XB", "true"});
  CHECK(memory == 125);
  CHECK(err1.find("--memory='12XB'") != std::string::npos);
  auto [env, out2, err2] = fiber.Run({"run", "--env", "NOEQUALS", "true"});
  CHECK(env == 125);
  CHECK(err2.find("--env 'NOEQUALS' is not of the form KEY=VALUE") != std::string::npos);
  auto [good, out3, err3] = fiber.Run({"run", "-q", "--memory", "512Mi", "--env", "GREETING=hi",
                                       "sh", "-c", "echo $GREETING $FIBER_MEMORY"});
  CHECK(good == 0);
  CHECK(out3 == "hi 512Mi\n");
  CHECK(fiber.Ps().size() == 1);  // only the good one ran
}

TEST_CASE("fiber run --dry-run -o yaml prints the run's Secret redacted and a worker's pod, starting nothing") {
  Fiber fiber;
  auto [status, out, err] = fiber.Run({"run", "--dry-run", "-o", "yaml", "--backend", "kubernetes",
                                       "--kubeconfig", "/nonexistent/kubeconfig", "--namespace", "team-a",
                                       "--registry", "registry.test/ada/train", "--cpu", "2",
                                       "--host-network", "true", "/opt/train", "--lr", "0.1"});
  REQUIRE_MESSAGE(status == 0, err);
  CHECK(out.find("kind: Secret") != std::string::npos);
  CHECK(out.find("client-key: <redacted>") != std::string::npos);
  CHECK(out.find("\n---\n") != std::string::npos);
  CHECK(out.find("kind: Pod") != std::string::npos);
  CHECK(out.find("namespace: team-a") != std::string::npos);
  CHECK(out.find("hostNetwork: true") != std::string::npos);
  CHECK(out.find("- /opt/train") != std::string::npos);
  CHECK(out.find("cpu: \"2000m\"") != std::string::npos);
  CHECK(out.find("image: registry.test/ada/train:") != std::string::npos);
  CHECK(out.find("FIBER_CLIENT_KEY_FILE") != std::string::npos);
  CHECK(fiber.Ps().empty());  // no run was made
  // Only with --dry-run, only yaml, only for Kubernetes.
  auto [local, local_out, local_err] = fiber.Run({"run", "--dry-run", "-o", "yaml", "/opt/train"});
  CHECK(local != 0);
  CHECK_MESSAGE(local_err.find("this run's backend is local") != std::string::npos, local_err);
  auto [json_status, json_out, json_err] =
      fiber.Run({"run", "--dry-run", "-o", "json", "--backend", "kubernetes", "/opt/train"});
  CHECK(json_status != 0);
  CHECK_MESSAGE(json_err.find("--output takes yaml") != std::string::npos, json_err);
}

TEST_CASE("fiber run --dry-run -o yaml tells workers advertise_host, not a wildcard listen_host") {
  Fiber fiber;
  auto [status, out, err] = fiber.Run({"run", "--dry-run", "-o", "yaml", "--backend", "kubernetes",
                                       "--kubeconfig", "/nonexistent/kubeconfig", "--registry",
                                       "registry.test/ada/train", "--listen-host", "0.0.0.0",
                                       "--listen-port", "7000", "--advertise-host", "trainer.lab",
                                       "/opt/train"});
  REQUIRE_MESSAGE(status == 0, err);
  CHECK_MESSAGE(out.find("value: tcp://trainer.lab:7000") != std::string::npos, out);
  CHECK(out.find("0.0.0.0") == std::string::npos);
}

TEST_CASE("fiber run --dry-run -o yaml with master: cluster adds the master's pod, told the run's key and its own address") {
  Fiber fiber;
  auto [status, out, err] = fiber.Run({"run", "--dry-run", "-o", "yaml", "--backend", "kubernetes",
                                       "--master", "cluster", "--kubeconfig", "/nonexistent/kubeconfig",
                                       "--namespace", "team-a", "--registry", "registry.test/ada/train",
                                       "--env", "SEED=7", "/opt/train", "--lr", "0.1"});
  REQUIRE_MESSAGE(status == 0, err);
  CHECK(out.find("client-key: <redacted>") != std::string::npos);
  CHECK(out.find("fiber.role: master") != std::string::npos);
  CHECK(out.find("fiber.role: worker") != std::string::npos);
  // The master listens on its pod's address, which its workers are told.
  CHECK(out.find("fieldPath: status.podIP") != std::string::npos);
  CHECK(out.find("<the master pod's address>") != std::string::npos);
  // It proves its workers with the Secret's key, and reaches the API from
  // inside: nothing of this machine's kubeconfig goes in.
  CHECK(out.find("FIBER_RUN_KEY_FILE") != std::string::npos);
  CHECK(out.find("FIBER_KUBECONFIG") == std::string::npos);
  CHECK(out.find("/nonexistent/kubeconfig") == std::string::npos);
  CHECK(out.find("value: team-a") != std::string::npos);  // FIBER_NAMESPACE
  CHECK(out.find("SEED") != std::string::npos);
  CHECK(fiber.Ps().empty());
}

TEST_CASE("with master: cluster, the user's worker template goes to the master's pod through the run's Secret") {
  Fiber fiber;
  TempDir templates;
  templates.write("worker-pod.yaml",
                  "apiVersion: v1\nkind: Pod\nmetadata: {labels: {team: rl}}\n"
                  "spec: {containers: [{name: worker, image: ''}]}\n");
  auto [status, out, err] = fiber.Run({"run", "--dry-run", "-o", "yaml", "--backend", "kubernetes",
                                       "--master", "cluster", "--kubeconfig", "/nonexistent/kubeconfig",
                                       "--registry", "registry.test/ada/train", "--templates", templates.path(),
                                       "/opt/train"});
  REQUIRE_MESSAGE(status == 0, err);
  CHECK(out.find("worker-pod.yaml: <redacted>") != std::string::npos);  // in the Secret
  CHECK(out.find("path: templates/worker-pod.yaml") != std::string::npos);  // mounted in the master's pod
  CHECK(out.find("value: /var/run/fiber/templates") != std::string::npos);  // FIBER_TEMPLATES there
  CHECK(out.find(templates.path()) == std::string::npos);  // nothing of this machine
  CHECK(out.find("team: rl") != std::string::npos);  // the worker's pod, from it
}

TEST_CASE("master: cluster on a backend without pods is refused, naming both settings") {
  Fiber fiber;
  auto [status, out, err] = fiber.Run({"run", "--master", "cluster", "--backend", "docker", "/opt/train"});
  CHECK(status == 125);
  CHECK_MESSAGE(err.find("master: cluster (from --master)") != std::string::npos, err);
  CHECK_MESSAGE(err.find("needs backend kubernetes or slurm, not docker") != std::string::npos, err);
  auto [bad, bad_out, bad_err] = fiber.Run({"run", "--master", "pod", "/opt/train"});
  CHECK(bad == 125);
  CHECK_MESSAGE(bad_err.find("'pod' is not where a master runs (local or cluster)") != std::string::npos, bad_err);
}

TEST_CASE("fiber run on kubernetes without a registry or an image says so before anything starts") {
  Fiber fiber;
  auto [status, out, err] = fiber.Run({"run", "--backend", "kubernetes", built_program("chatty_pool")});
  CHECK(status != 0);
  CHECK_MESSAGE(err.find("needs an image its nodes can pull") != std::string::npos, err);
}

TEST_CASE("fiber run on slurm without Slurm's commands says so before the program starts") {
  Fiber fiber;
  TempDir bin;  // a PATH with sh and touch, and no sbatch
  for (const char* tool : {"sh", "touch"})
    REQUIRE(::symlink((std::string("/bin/") + tool).c_str(), (bin.path() + "/" + tool).c_str()) == 0);
  fiber.env["PATH"] = bin.path();
  auto [status, out, err] =
      fiber.Run({"run", "--backend", "slurm", "sh", "-c", "touch " + bin.path() + "/started"});
  CHECK(status == 125);
  CHECK_MESSAGE(err.find("fiber: error: sbatch is not installed (no such program on PATH)") !=
                    std::string::npos,
                err);
  CHECK(!std::ifstream(bin.path() + "/started"));
  CHECK(fiber.Ps().empty());  // no run was recorded
}

TEST_CASE("a program killed by a signal is said in one line, its status 128+N") {
  Fiber fiber;
  auto [status, out, err] = fiber.Run({"run", "sh", "-c", "echo last words >&2; kill -SEGV $$"});
  CHECK(status == 128 + SIGSEGV);
  CHECK_MESSAGE(err.find("last words\nfiber: sh was killed by SIGSEGV\n") != std::string::npos, err);
  CHECK(err.find("error") == std::string::npos);
  // A reader that stopped early is no news (a shell says nothing either).
  auto [piped, piped_out, piped_err] = fiber.Run({"run", "sh", "-c", "kill -PIPE $$"});
  CHECK(piped == 128 + SIGPIPE);
  CHECK(piped_err.find("killed by") == std::string::npos);
}
