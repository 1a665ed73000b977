#include "supervisor.hpp"

#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "backend/worker_output.hpp"
#include "control_client.hpp"
#include "log_follower.hpp"
#include "os/descriptor.hpp"
#include "os/signal_name.hpp"
#include "runs/control_protocol.hpp"
#include "runs/run_dir.hpp"

namespace fiber::cli {

using Clock = std::chrono::steady_clock;

namespace {

// Between two looks at the master, its output and its workers' logs.
constexpr auto kTick = std::chrono::milliseconds(100);

void Say(const SuperviseOptions& o, const std::string& line) {
  if (o.quiet || o.detached || line.empty()) return;
  const std::string text = "fiber: " + line + "\n";
  os::WriteAll(2, text);  // a closed stderr loses the text, not the run
}

// Writes the master's numbers at the stop (numbers, unless null) as the
// run's final ones, marked so, when its master wrote none as it ended.
void KeepNumbersAtStop(const std::string& run_dir, nlohmann::json numbers) {
  const std::string path = runs::FinalNumbersPath(run_dir);
  if (!numbers.is_object() || ::access(path.c_str(), F_OK) == 0) return;
  numbers["as_of"] = "stop";
  std::string unused;  // without them ps says the counts are unknown
  (void)runs::WriteWhole(path, numbers.dump(), &unused);
}

// On a terminal, a line "workers ready R/W" while the workers of a master
// that runs here start, cleared before anything else is written and once
// all are ready.
class Progress {
 public:
  Progress(const SuperviseOptions& o, ControlClient* control)
      : o_(o), control_(control), on_(o.here && !o.quiet && !o.detached && ::isatty(2)) {}
  void Show() {
    if (!on_ || Clock::now() - last_ < std::chrono::milliseconds(250)) return;
    last_ = Clock::now();
    nlohmann::json s;
    std::string unused;
    if (!control_->Query(o_.run_dir, runs::kControlStatus, &s, &unused)) return;
    const int ready = s.value("workers_ready", 0), wanted = s.value("workers_wanted", 0);
    const std::string line =
        ready < wanted ? "fiber: workers ready " + std::to_string(ready) + "/" + std::to_string(wanted) : "";
    if (line == shown_) return;
    Clear();
    if (!line.empty()) os::WriteAll(2, line);
    shown_ = line;
  }
  void Clear() {
    if (shown_.empty()) return;
    os::WriteAll(2, "\r\033[K");
    shown_.clear();
  }

 private:
  const SuperviseOptions& o_;
  ControlClient* control_;
  const bool on_;
  std::string shown_;
  Clock::time_point last_ = Clock::now() - std::chrono::seconds(1);
};

}  // namespace

int TakeStopSignals() {
  sigset_t handled;
  sigemptyset(&handled);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&handled, s);
  ::sigprocmask(SIG_BLOCK, &handled, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
  return ::signalfd(-1, &handled, SFD_CLOEXEC | SFD_NONBLOCK);
}

int Supervise(const StartMaster& start, const SuperviseOptions& o, std::string* err) {
  const os::Descriptor signals(TakeStopSignals());
  const os::Descriptor master_log(runs::OpenToAppend(runs::MasterLogPath(o.run_dir)));
  if (!signals || !master_log) {
    *err = std::string("cannot set up the run: ") + std::strerror(errno);
    return kFiberError;
  }
  int status = kFiberError;
  const std::unique_ptr<backend::RunningMaster> master = start(&status, err);
  if (!master) return status;
  const backend::MasterWords& words = master->words();
  Say(o, words.started);

  ControlClient control;
  Progress progress(o, &control);
  LogFollower workers(runs::WorkersDir(o.run_dir), [&](const std::string& id, const std::string& line) {
    if (o.detached) return;
    progress.Clear();
    os::WriteAll(2, backend::HeadedLine(id, line));
  });
  const auto copy_output = [&] {
    const std::string text = master->TakeOutput();
    if (text.empty()) return;
    if (!o.detached) {
      progress.Clear();
      os::WriteAll(master->out_fd(), text);  // a closed output loses the text, not the run
    }
    if (!master->engine_writes_master_log()) os::WriteAll(master_log.get(), text);
  };
  const auto kill = [&] {
    std::string kill_err;
    if (!master->Kill(&kill_err)) Say(o, kill_err);
  };
  // The master's numbers as the first stop reached it: kept as the run's
  // final numbers if the stop ends the program before its master writes its own.
  nlohmann::json at_stop;
  backend::MasterState state;
  std::string waiting, trouble;
  int stops = 0;
  auto deadline = Clock::time_point::max();  // of the grace period, once one runs
  for (;;) {
    state = master->Wait(kTick);
    const bool ended = state.phase == backend::MasterState::Phase::kEnded;
    signalfd_siginfo info;
    while (::read(signals.get(), &info, sizeof info) == sizeof info) {
      const int sig = static_cast<int>(info.ssi_signo);
      if (ended) continue;
      if (++stops == 1) {
        std::string unused;
        if (!o.here || !control.Query(o.run_dir, runs::kControlStatus, &at_stop, &unused)) at_stop = nullptr;
        Say(o, std::string("stopping the run (") + strsignal(sig) + " again to force)");
        std::string stop_err;
        if (!master->Stop(sig, &stop_err)) Say(o, stop_err);
        deadline = Clock::now() + o.grace + master->stop_slack();
      } else {
        Say(o, "ending the run now");
        kill();
      }
    }
    if (state.trouble != trouble && !state.trouble.empty()) Say(o, state.trouble);
    trouble = state.trouble;
    if (state.waiting != waiting && !state.waiting.empty())
      Say(o, words.name + " " + words.waits + ": " + state.waiting);
    waiting = state.waiting;
    copy_output();
    workers.Poll();
    if (ended) break;
    progress.Show();
    if (Clock::now() > deadline) {
      Say(o, "the program did not stop within " + std::to_string(o.grace.count() / 1000.0).substr(0, 4) +
                 " s; ending it");
      kill();
      deadline = Clock::time_point::max();
    }
  }
  workers.Flush();
  progress.Clear();
  KeepNumbersAtStop(o.run_dir, std::move(at_stop));
  if (!state.exit) {
    *err = state.error;
    return kFiberError;
  }
  // Its status alone (139) makes one look up what happened; said after the
  // program's own last words. SIGPIPE is a reader that stopped early, as
  // shells take it too.
  if (o.here && state.exit->killed() && state.exit->signal() != SIGPIPE && stops == 0)
    Say(o, o.program + " was killed by " + SignalName(state.exit->signal()));
  return state.exit->code();
}

}  // namespace fiber::cli
