// What serving fiber top costs a master: a Pool of N local workers (2,048
// by default), every one busy with a long task, and the master's own CPU
// (user + system, its process alone: getrusage(RUSAGE_SELF), which leaves
// out its children) over phases of 10 s, alternating: no one asking, and
// `fiber top --once --json RUN` run once a second, as the live view asks.
// The cost is the difference, in percent of one core; on a busy machine
// that difference is within the noise, so a last phase asks back to back
// and takes the master's CPU per answer above its quiet rate: at one answer
// a second, that many ms is ms/10 percent of a core. Also the size of the
// answer and what each fiber top took of its own CPU. Run on its own, it
// starts itself under `fiber run -q` (the control socket is the run's),
// with a private runs directory; prints one JSON object.
// Usage: top_cost [N] [--quick] (--quick: N = 256, 2 rounds of 5 s).
#include <fiber/fiber.hpp>
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "common.hpp"

extern char** environ;

namespace {

int nap(int seconds) {
  std::this_thread::sleep_for(std::chrono::seconds(seconds));
  return seconds;
}
FIBER_TASK(nap);

double Cpu(int who) {
  struct rusage u {};
  ::getrusage(who, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// Runs args to the end with stdout to out (a path; empty: this stdout);
// true when it exited 0.
bool Spawn(const std::vector<std::string>& args, const std::string& out) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (!out.empty()) posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid = 0;
  const int failed = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (failed) return false;
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

std::string FiberCommand() {
  const std::filesystem::path self = std::filesystem::canonical("/proc/self/exe");
  return (self.parent_path().parent_path() / "cli" / "fiber").string();
}

}  // namespace

int main(int argc, char** argv) {
  fiber::init(argc, argv);  // a worker serves tasks here and never returns
  const bool quick = bench::quick(argc, argv);
  const int n = argc > 1 && argv[1][0] != '-' ? std::atoi(argv[1]) : quick ? 256 : 2048;
  const char* run_id = std::getenv("FIBER_RUN_ID");
  if (!run_id) {
    // Not under fiber run yet: start this again under it.
    char state[] = "/tmp/fiber-bench-XXXXXX";
    ::setenv("XDG_STATE_HOME", ::mkdtemp(state), 1);
    std::vector<std::string> args = {FiberCommand(), "run", "-q", std::filesystem::canonical("/proc/self/exe").string(),
                                     std::to_string(n)};
    if (quick) args.push_back("--quick");
    const bool ok = Spawn(args, "");
    std::filesystem::remove_all(state);
    return ok ? 0 : 1;
  }
  const int rounds = quick ? 2 : 3;
  const double phase_s = quick ? 5 : 10;
  const auto t0 = bench::Clock::now();
  fiber::Pool pool(n);
  double ready_s = 0;
  for (std::size_t ready = 0; ready < static_cast<std::size_t>(n);) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    ready = 0;
    for (const auto& w : pool.workers()) ready += w.state == fiber::WorkerState::kReady;
    if (bench::seconds_since(t0) > 600) {
      std::cerr << "only " << ready << " of " << n << " workers ready after 600 s\n";
      return 1;
    }
  }
  ready_s = bench::seconds_since(t0);
  // Every worker busy for the whole measure.
  const int hold = static_cast<int>(rounds * 2 * phase_s + 30);
  std::vector<int> items(static_cast<std::size_t>(n), hold);
  auto busy = pool.map_async(nap, items, 1);
  std::this_thread::sleep_for(std::chrono::seconds(3));
  const std::string answer = "/tmp/fiber-bench-top-" + std::to_string(::getpid()) + ".json";
  const std::vector<std::string> top = {FiberCommand(), "top", "--once", "--json", run_id};
  std::vector<double> quiet, asked;
  double top_cpu = 0;
  int tops = 0;
  for (int r = 0; r < rounds; ++r) {
    for (bool ask : {false, true}) {
      const double cpu0 = Cpu(RUSAGE_SELF), child0 = Cpu(RUSAGE_CHILDREN);
      const auto p0 = bench::Clock::now();
      for (int s = 1; bench::seconds_since(p0) < phase_s; ++s) {
        if (ask) {
          if (!Spawn(top, answer)) {
            std::cerr << "fiber top --once --json failed\n";
            return 1;
          }
          ++tops;
        }
        std::this_thread::sleep_until(p0 + std::chrono::milliseconds(static_cast<int>(1000 * s)));
      }
      const double share = 100 * (Cpu(RUSAGE_SELF) - cpu0) / bench::seconds_since(p0);
      (ask ? asked : quiet).push_back(share);
      if (ask) top_cpu += Cpu(RUSAGE_CHILDREN) - child0;
    }
  }
  // Asked back to back: the master's CPU per answer, above the quiet rate.
  const double cpu0 = Cpu(RUSAGE_SELF);
  const auto f0 = bench::Clock::now();
  int answers = 0;
  for (; bench::seconds_since(f0) < phase_s; ++answers)
    if (!Spawn(top, answer)) return 1;
  const double flood_s = bench::seconds_since(f0);
  const double per_answer_ms =
      1000 * ((Cpu(RUSAGE_SELF) - cpu0) - bench::summarize(quiet).mean / 100 * flood_s) / answers;
  const auto bytes = std::filesystem::file_size(answer);
  std::filesystem::remove(answer);
  const auto q = bench::summarize(quiet), a = bench::summarize(asked);
  bench::Json out;
  out.num("workers", n)
      .num("all_ready_s", ready_s)
      .num("master_cpu_pct_quiet", q.mean)
      .num("master_cpu_pct_top", a.mean)
      .num("top_cost_pct", a.mean - q.mean)
      .num("back_to_back_answers", answers)
      .num("master_cpu_ms_per_answer", per_answer_ms)
      .num("top_cost_pct_from_per_answer", per_answer_ms / 10)
      .num("answer_bytes", static_cast<double>(bytes))
      .num("fiber_top_cpu_ms_each", 1000 * top_cpu / tops);
  pool.terminate();
  pool.join();
  (void)busy;
  std::cout << out.text() << "\n";
}
