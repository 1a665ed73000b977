// What serving fiber top and /metrics costs a master: a Pool of N local
// workers (2,048 by default), every one busy with a long task, and the
// master's own CPU (user + system, its process alone:
// getrusage(RUSAGE_SELF), which leaves out its children) over phases of
// 10 s, in turn: no one asking, `fiber top --once --json RUN` run once a
// second (as the live view asks), and GET /metrics once a second (as a
// Prometheus scraping every second would). Each cost is the difference to
// the quiet phases, in percent of one core; on a busy machine that
// difference is within the noise, so last phases ask back to back and take
// the master's CPU per answer above its quiet rate: at one answer a
// second, that many ms is ms/10 percent of a core. Also the answers' sizes
// and what each fiber top took of its own CPU. Run on its own, it starts
// itself under `fiber run -q --metrics 127.0.0.1:PORT` (the control socket
// is the run's), with a private runs directory; prints one JSON object.
// Usage: top_cost [N] [--quick] (--quick: N = 256, 2 rounds of 5 s).
#include <fiber/fiber.hpp>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <spawn.h>
#include <sys/socket.h>
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

// GET /metrics from the master at address ("127.0.0.1:PORT"): the body's
// bytes with the headers, 0 when nothing answered.
std::size_t GetMetrics(const std::string& address) {
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(std::atoi(address.substr(address.rfind(':') + 1).c_str())));
  ::inet_pton(AF_INET, address.substr(0, address.rfind(':')).c_str(), &to.sin_addr);
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  std::size_t got = 0;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) == 0) {
    const std::string request = "GET /metrics HTTP/1.1\r\nHost: bench\r\n\r\n";
    if (::write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
      char buf[65536];
      for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) got += static_cast<std::size_t>(n);
    }
  }
  ::close(fd);
  return got;
}

// A port free on loopback now.
int FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof a;
  (void)::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  (void)::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &size);
  ::close(fd);
  return ntohs(a.sin_port);
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
    std::vector<std::string> args = {FiberCommand(), "run", "-q", "--metrics", "127.0.0.1:" + std::to_string(FreePort()),
                                     std::filesystem::canonical("/proc/self/exe").string(), std::to_string(n)};
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
  const char* metrics_env = std::getenv("FIBER_METRICS");
  const std::string metrics = metrics_env ? metrics_env : "";
  std::size_t metrics_bytes = 0;
  // One way of asking: false when it failed.
  enum Ask { kQuiet, kTop, kMetrics };
  const auto ask_once = [&](Ask how) {
    if (how == kTop) return Spawn(top, answer);
    if (how == kMetrics) return (metrics_bytes = GetMetrics(metrics)) > 0;
    return true;
  };
  std::vector<double> quiet, asked, scraped;
  double top_cpu = 0;
  int tops = 0;
  for (int r = 0; r < rounds; ++r) {
    for (Ask how : {kQuiet, kTop, kMetrics}) {
      const double cpu0 = Cpu(RUSAGE_SELF), child0 = Cpu(RUSAGE_CHILDREN);
      const auto p0 = bench::Clock::now();
      for (int s = 1; bench::seconds_since(p0) < phase_s; ++s) {
        if (!ask_once(how)) {
          std::cerr << (how == kTop ? "fiber top --once --json failed\n" : "GET /metrics failed\n");
          return 1;
        }
        tops += how == kTop;
        std::this_thread::sleep_until(p0 + std::chrono::milliseconds(static_cast<int>(1000 * s)));
      }
      const double share = 100 * (Cpu(RUSAGE_SELF) - cpu0) / bench::seconds_since(p0);
      (how == kQuiet ? quiet : how == kTop ? asked : scraped).push_back(share);
      if (how == kTop) top_cpu += Cpu(RUSAGE_CHILDREN) - child0;
    }
  }
  // Asked back to back: the master's CPU per answer, above the quiet rate.
  const auto per_answer_ms = [&](Ask how, int* answers) {
    const double cpu0 = Cpu(RUSAGE_SELF);
    const auto f0 = bench::Clock::now();
    for (*answers = 0; bench::seconds_since(f0) < phase_s; ++*answers)
      if (!ask_once(how)) return -1.0;
    const double flood_s = bench::seconds_since(f0);
    return 1000 * ((Cpu(RUSAGE_SELF) - cpu0) - bench::summarize(quiet).mean / 100 * flood_s) / *answers;
  };
  int answers = 0, scrapes = 0;
  const double top_ms = per_answer_ms(kTop, &answers);
  const double metrics_ms = per_answer_ms(kMetrics, &scrapes);
  if (top_ms < 0 || metrics_ms < 0) return 1;
  const auto bytes = std::filesystem::file_size(answer);
  std::filesystem::remove(answer);
  const auto q = bench::summarize(quiet), a = bench::summarize(asked), m = bench::summarize(scraped);
  bench::Json out;
  out.num("workers", n)
      .num("all_ready_s", ready_s)
      .num("master_cpu_pct_quiet", q.mean)
      .num("master_cpu_pct_top", a.mean)
      .num("top_cost_pct", a.mean - q.mean)
      .num("back_to_back_answers", answers)
      .num("master_cpu_ms_per_answer", top_ms)
      .num("top_cost_pct_from_per_answer", top_ms / 10)
      .num("answer_bytes", static_cast<double>(bytes))
      .num("master_cpu_pct_metrics", m.mean)
      .num("metrics_cost_pct", m.mean - q.mean)
      .num("back_to_back_scrapes", scrapes)
      .num("master_cpu_ms_per_scrape", metrics_ms)
      .num("metrics_cost_pct_from_per_scrape", metrics_ms / 10)
      .num("metrics_bytes", static_cast<double>(metrics_bytes))
      .num("fiber_top_cpu_ms_each", 1000 * top_cpu / tops);
  pool.terminate();
  pool.join();
  (void)busy;
  std::cout << out.text() << "\n";
}
