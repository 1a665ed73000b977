// fiber top [RUN] [--once [--json]] [--sort ORDER]: a live view of one run,
// or of every running run, redrawn each second: the master's own CPU and
// memory, each pool's tasks done, failed, retried, running and queued, its
// rate now and on average and its time to finish, and each worker with
// where it runs, its state, its task and for how long. From each master's
// control socket ("run-status", runs/control_protocol.hpp); of a run whose
// master does not answer, its workers as its engine records them, with a
// note saying so. q quits, s changes the order of the workers.
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "error_line.hpp"
#include "control_client.hpp"
#include "run_store.hpp"
#include "run_view.hpp"
#include "supervisor.hpp"
#include "terminal_screen.hpp"
#include "top_view.hpp"

namespace fiber::cli {

namespace {

// How often the screen is redrawn, and how often the engines are asked
// again for their records (a polite client of a shared API server).
constexpr int kRedrawMs = 1000;
constexpr auto kEngineRefresh = std::chrono::seconds(10);

struct TopOptions {
  std::string run;  // empty: every running run
  bool once = false, json = false;
  WorkerOrder order = WorkerOrder::kState;
};

// The runs to show and each one in full. One run by key (in any state);
// without, every run that runs (or whose state its engine cannot tell).
class RunsView {
 public:
  explicit RunsView(const TopOptions& o) : o_(o), store_(RunsRoot()) {}

  // False with *err when the run named is not there.
  [[nodiscard]] bool Take(nlohmann::json* runs, std::string* err) {
    std::vector<RunRecord> shown;
    if (!o_.run.empty()) {
      RunRecord r;
      if (!store_.Find(o_.run, &r, err)) return false;
      shown.push_back(std::move(r));
    } else {
      for (RunRecord& r : store_.List()) {
        const RunState state = RunStore::StateOf(r);
        if (state == RunState::kRunning || state == RunState::kUnknown) shown.push_back(std::move(r));
      }
    }
    const auto now = std::chrono::steady_clock::now();
    if (!asked_ || now - asked_at_ >= kEngineRefresh || shown.size() != last_count_) {
      placed_ = ListWorkers(shown);
      asked_ = true;
      asked_at_ = now;
      last_count_ = shown.size();
    }
    *runs = nlohmann::json::array();
    for (const RunRecord& r : shown) runs->push_back(DescribeInFull(control_, r, placed_));
    return true;
  }

 private:
  const TopOptions& o_;
  RunStore store_;
  ControlClient control_;
  backend::RunsWorkers placed_;
  bool asked_ = false;
  std::chrono::steady_clock::time_point asked_at_;
  std::size_t last_count_ = 0;
};

// Every run's lines; workers at most most_workers per run.
std::vector<std::string> Lines(const nlohmann::json& runs, WorkerOrder order, std::size_t most_workers) {
  std::vector<std::string> lines;
  if (runs.empty()) lines.push_back("no run is running (fiber ps -a lists those that ended)");
  for (const auto& run : runs) {
    if (!lines.empty()) lines.push_back("");
    lines.push_back(RunLine(run));
    for (std::string& line : PoolLines(run)) lines.push_back(std::move(line));
    for (std::string& line : WorkerLines(run, order, most_workers)) lines.push_back(std::move(line));
  }
  return lines;
}

int Once(const TopOptions& o) {
  RunsView view(o);
  nlohmann::json runs;
  std::string err;
  if (!view.Take(&runs, &err)) {
    Error(err);
    return 1;
  }
  if (o.json) {
    std::printf("%s\n", (o.run.empty() ? runs : runs[0]).dump(2).c_str());
    return 0;
  }
  for (const std::string& line : Lines(runs, o.order, static_cast<std::size_t>(-1)))
    std::printf("%s\n", line.c_str());
  return 0;
}

std::string Clock() {
  const std::time_t t = std::time(nullptr);
  char text[16];
  std::tm tm{};
  std::strftime(text, sizeof text, "%H:%M:%S", ::localtime_r(&t, &tm));
  return text;
}

int Watch(RunsView& view, nlohmann::json runs, TopOptions o, int signal_fd, std::string* err);

int Live(const TopOptions& o) {
  // Signals arrive as reads, so the terminal is always put back. Blocked
  // before any thread starts (ZeroMQ's), which would otherwise take them.
  sigset_t signals;
  sigemptyset(&signals);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGWINCH}) sigaddset(&signals, s);
  sigset_t old;
  ::pthread_sigmask(SIG_BLOCK, &signals, &old);
  const int signal_fd = ::signalfd(-1, &signals, SFD_CLOEXEC);
  const auto unblock = [&] {
    if (signal_fd >= 0) ::close(signal_fd);
    ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  };
  RunsView view(o);
  nlohmann::json runs;
  std::string err;
  if (!view.Take(&runs, &err)) {  // a run that is not there: said before the screen changes
    unblock();
    Error(err);
    return 1;
  }
  const int status = Watch(view, runs, o, signal_fd, &err);
  unblock();  // the terminal put back first
  if (status == kFiberError) Error(err);
  return status;
}

int Watch(RunsView& view, nlohmann::json runs, TopOptions o, int signal_fd, std::string* err) {
  TerminalScreen screen;
  if (signal_fd < 0 || !screen.Open(STDIN_FILENO, STDOUT_FILENO, err)) {
    if (signal_fd < 0) *err = "cannot watch for signals";
    return kFiberError;
  }
  int status = -1;
  bool fresh = true;  // runs were just taken
  while (status < 0) {
    std::string gone;
    if (!fresh && !view.Take(&runs, &gone)) runs = nlohmann::json::array();  // the run was removed
    fresh = false;
    int rows = 0, columns = 0;
    screen.Size(&rows, &columns);
    std::vector<std::string> lines = {"fiber top  " + Clock() + "  " + std::to_string(runs.size()) +
                                      (runs.size() == 1 ? " run" : " runs") + "  workers by " +
                                      to_string(o.order) + " (s: change)  q: quit"};
    // Each run's workers share the rows left.
    const std::size_t fixed = 4 * runs.size() + 2;
    const std::size_t room = static_cast<std::size_t>(rows) > fixed ? static_cast<std::size_t>(rows) - fixed : 1;
    const std::size_t most = std::max<std::size_t>(1, room / std::max<std::size_t>(1, runs.size()));
    for (std::string& line : Lines(runs, o.order, most)) lines.push_back(std::move(line));
    screen.Draw(lines);
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(kRedrawMs);
    for (bool redraw = false; !redraw && status < 0;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
      if (left.count() <= 0) break;
      pollfd fds[] = {{STDIN_FILENO, POLLIN, 0}, {signal_fd, POLLIN, 0}};
      if (::poll(fds, 2, static_cast<int>(left.count())) < 0) continue;
      if (fds[1].revents & POLLIN) {
        signalfd_siginfo info{};
        if (::read(signal_fd, &info, sizeof info) == sizeof info) {
          if (info.ssi_signo == SIGWINCH) redraw = true;
          else status = 128 + static_cast<int>(info.ssi_signo);
        }
      }
      if (fds[0].revents & (POLLHUP | POLLERR)) status = 0;
      if (fds[0].revents & POLLIN) {
        char keys[64];
        const ssize_t n = ::read(STDIN_FILENO, keys, sizeof keys);
        if (n == 0) status = 0;  // the terminal went
        for (ssize_t i = 0; i < n && status < 0; ++i) {
          if (keys[i] == 'q' || keys[i] == 'Q') status = 0;
          if (keys[i] == 's' || keys[i] == 'S') {
            o.order = static_cast<WorkerOrder>((static_cast<int>(o.order) + 1) % kWorkerOrders);
            redraw = true;
          }
        }
      }
    }
  }
  return status;
}

}  // namespace

void AddTopCommand(CLI::App& app, int* status) {
  auto o = std::make_shared<TopOptions>();
  auto order = std::make_shared<std::string>("state");
  CLI::App* top = app.add_subcommand("top", "watch runs live: pools, rates, workers and their tasks");
  top->add_option("RUN", o->run, "watch this run only: run id, unique prefix of one, or name");
  top->add_flag("--once", o->once, "print one snapshot and exit, for scripts");
  top->add_flag("--json", o->json, "with --once: JSON, the run's object (as fiber ps --json RUN), or an array of runs");
  top->add_option("--sort", *order, "order of the workers: id, state, task-time, done")
      ->check(CLI::IsMember({"id", "state", "task-time", "done"}));
  top->callback([=] {
    if (o->json && !o->once) {
      Error("--json prints one snapshot: use it with --once");
      *status = kFiberError;
      return;
    }
    o->order = *order == "id"          ? WorkerOrder::kId
               : *order == "task-time" ? WorkerOrder::kTaskTime
               : *order == "done"      ? WorkerOrder::kDone
                                       : WorkerOrder::kState;
    *status = o->once ? Once(*o) : Live(*o);
  });
}

}  // namespace fiber::cli
