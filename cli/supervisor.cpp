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

namespace {

// One started run seen to its end: each tick, the stop signals, what the
// master says of itself, its output and its workers' logs, the grace
// period.
class Supervision {
 public:
  Supervision(const SuperviseOptions& o, backend::RunningMaster& master, int signals, int master_log)
      : o_(o),
        master_(master),
        signals_(signals),
        master_log_(master_log),
        // Only a master here answers on its control socket.
        progress_(o.here && !o.quiet && !o.detached && ::isatty(2),
                  [this](nlohmann::json* status) {
                    std::string unused;
                    return control_.Query(o_.run_dir, runs::kControlStatus, status, &unused);
                  }),
        output_on_terminal_(::isatty(master.out_fd())),
        // Its logs, stamped as they grow (runs/log_stamps.hpp) for fiber
        // logs to merge and time; the workers' lines shown on our stderr.
        workers_({{o.run_dir, "master"}, {runs::WorkersDir(o.run_dir), ""}},
                 [this](const std::string& id, const std::string& line, runs::WallClock::time_point) {
                   if (o_.detached || id == "master") return;
                   progress_.Clear();
                   os::WriteAll(2, backend::HeadedLine(id, line));
                 },
                 LogFollower::Stamps::kWrite) {}

  // Follows the master until it ended; its last state.
  backend::MasterState Run() {
    backend::MasterState state;
    for (;;) {
      state = master_.Wait(kTick);
      const bool ended = state.phase == backend::MasterState::Phase::kEnded;
      TakeSignals(ended);
      SayNews(state);
      CopyOutput();
      workers_.Poll();
      if (ended) break;
      progress_.Show();
      EndAfterGrace();
    }
    workers_.Flush();
    progress_.Clear();
    KeepNumbersAtStop(o_.run_dir, std::move(at_stop_));
    return state;
  }
  // Whether a stop signal came before the end.
  bool stopped() const { return stops_ > 0; }

 private:
  // What fiber says takes the progress line off first, as all output does.
  void Say(const std::string& line) {
    progress_.Clear();
    fiber::cli::Say(o_, line);
  }
  void Kill() {
    std::string kill_err;
    if (!master_.Kill(&kill_err)) Say(kill_err);
  }
  // The first stop signal stops the run with the grace period, another
  // ends it now.
  void TakeSignals(bool ended) {
    signalfd_siginfo info;
    while (::read(signals_, &info, sizeof info) == sizeof info) {
      const int sig = static_cast<int>(info.ssi_signo);
      if (ended) continue;
      if (++stops_ == 1) {
        // The master's numbers as the first stop reached it: kept as the
        // run's final numbers if the stop ends the program before its
        // master writes its own.
        std::string unused;
        if (!o_.here || !control_.Query(o_.run_dir, runs::kControlStatus, &at_stop_, &unused)) at_stop_ = nullptr;
        Say(std::string("stopping the run (") + strsignal(sig) + " again to force)");
        std::string stop_err;
        if (!master_.Stop(sig, &stop_err)) Say(stop_err);
        deadline_ = Clock::now() + o_.grace + master_.stop_slack();
      } else {
        Say("ending the run now");
        Kill();
      }
    }
  }
  // Trouble, and why the master waits, each said once as it changes.
  void SayNews(const backend::MasterState& state) {
    const backend::MasterWords& words = master_.words();
    if (state.trouble != trouble_ && !state.trouble.empty()) Say(state.trouble);
    trouble_ = state.trouble;
    if (state.waiting != waiting_ && !state.waiting.empty()) Say(words.name + " " + words.waits + ": " + state.waiting);
    waiting_ = state.waiting;
  }
  void CopyOutput() {
    const std::string text = master_.TakeOutput();
    if (text.empty()) return;
    if (!o_.detached) {
      progress_.Clear();
      os::WriteAll(master_.out_fd(), text);  // a closed output loses the text, not the run
      if (output_on_terminal_) progress_.Wrote(text);
    }
    if (!master_.engine_writes_master_log()) os::WriteAll(master_log_, text);
  }
  void EndAfterGrace() {
    if (Clock::now() <= deadline_) return;
    Say("the program did not stop within " + std::to_string(o_.grace.count() / 1000.0).substr(0, 4) +
        " s; ending it");
    Kill();
    deadline_ = Clock::time_point::max();
  }

  const SuperviseOptions& o_;
  backend::RunningMaster& master_;
  const int signals_;
  const int master_log_;
  ControlClient control_;
  ProgressLine progress_;
  const bool output_on_terminal_;
  LogFollower workers_;
  nlohmann::json at_stop_;
  std::string waiting_, trouble_;
  int stops_ = 0;
  Clock::time_point deadline_ = Clock::time_point::max();  // of the grace period, once one runs
};

}  // namespace

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
  Say(o, master->words().started);
  Supervision supervision(o, *master, signals.get(), master_log.get());
  const backend::MasterState state = supervision.Run();
  if (!state.exit) {
    *err = state.error;
    return kFiberError;
  }
  // Its status alone (139) makes one look up what happened; said after the
  // program's own last words. SIGPIPE is a reader that stopped early, as
  // shells take it too.
  if (o.here && state.exit->killed() && state.exit->signal() != SIGPIPE && !supervision.stopped())
    Say(o, o.program + " was killed by " + SignalName(state.exit->signal()));
  return state.exit->code();
}

}  // namespace fiber::cli
