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
#include "progress_line.hpp"
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
  // Only a master here answers on its control socket.
  ProgressLine progress(o.here && !o.quiet && !o.detached && ::isatty(2), [&](nlohmann::json* status) {
    std::string unused;
    return control.Query(o.run_dir, runs::kControlStatus, status, &unused);
  });
  // What fiber says takes the progress line off first, as all output does.
  const auto say = [&](const std::string& line) {
    progress.Clear();
    Say(o, line);
  };
  const bool output_on_terminal = ::isatty(master->out_fd());
  // Its logs, stamped as they grow (runs/log_stamps.hpp) for fiber logs to
  // merge and time; the workers' lines shown on our stderr.
  LogFollower workers({{o.run_dir, "master"}, {runs::WorkersDir(o.run_dir), ""}},
                      [&](const std::string& id, const std::string& line, runs::WallClock::time_point) {
                        if (o.detached || id == "master") return;
                        progress.Clear();
                        os::WriteAll(2, backend::HeadedLine(id, line));
                      },
                      LogFollower::Stamps::kWrite);
  const auto copy_output = [&] {
    const std::string text = master->TakeOutput();
    if (text.empty()) return;
    if (!o.detached) {
      progress.Clear();
      os::WriteAll(master->out_fd(), text);  // a closed output loses the text, not the run
      if (output_on_terminal) progress.Wrote(text);
    }
    if (!master->engine_writes_master_log()) os::WriteAll(master_log.get(), text);
  };
  const auto kill = [&] {
    std::string kill_err;
    if (!master->Kill(&kill_err)) say(kill_err);
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
        say(std::string("stopping the run (") + strsignal(sig) + " again to force)");
        std::string stop_err;
        if (!master->Stop(sig, &stop_err)) say(stop_err);
        deadline = Clock::now() + o.grace + master->stop_slack();
      } else {
        say("ending the run now");
        kill();
      }
    }
    if (state.trouble != trouble && !state.trouble.empty()) say(state.trouble);
    trouble = state.trouble;
    if (state.waiting != waiting && !state.waiting.empty())
      say(words.name + " " + words.waits + ": " + state.waiting);
    waiting = state.waiting;
    copy_output();
    workers.Poll();
    if (ended) break;
    progress.Show();
    if (Clock::now() > deadline) {
      say("the program did not stop within " + std::to_string(o.grace.count() / 1000.0).substr(0, 4) +
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
    say(o.program + " was killed by " + SignalName(state.exit->signal()));
  return state.exit->code();
}

}  // namespace fiber::cli
