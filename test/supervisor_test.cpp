// fiber run's one supervise loop (cli/supervisor.cpp) driving a scripted
// master, as it drives the local program, a pod or a Slurm job: what it
// says, what it asks of the master on a stop, where the output goes and
// which exit status fiber run gives.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <deque>

#include "os/descriptor.hpp"
#include "os/whole_file.hpp"
#include "runs/run_dir.hpp"
#include "supervisor.hpp"
#include "support/temp_dir.hpp"

using fiber::ExitStatus;
using fiber::backend::MasterState;
using fiber::backend::MasterWords;
using fiber::backend::RunningMaster;
using fiber::cli::Supervise;
using fiber::cli::SuperviseOptions;

namespace {

using Phase = MasterState::Phase;

MasterState Pending(const std::string& why) {
  MasterState s;
  s.waiting = why;
  return s;
}
MasterState Running() {
  MasterState s;
  s.phase = Phase::kRunning;
  return s;
}
MasterState Ended(std::optional<ExitStatus> exit, const std::string& error = "") {
  MasterState s;
  s.phase = Phase::kEnded;
  s.exit = exit;
  s.error = error;
  return s;
}

// A master that goes through states, one a Wait, the last one for good;
// raise_at: the Waits after which a SIGINT reaches fiber run.
class ScriptedMaster : public RunningMaster {
 public:
  ScriptedMaster(std::deque<MasterState> states, std::vector<int> raise_at = {}, std::string output = "",
                 bool engine_log = false)
      : states_(std::move(states)), raise_at_(std::move(raise_at)), output_(std::move(output)),
        engine_log_(engine_log) {
    words_ = {"the master runs in the script", "the scripted master", "waits in the script"};
  }
  const MasterWords& words() const override { return words_; }
  MasterState Wait(std::chrono::milliseconds) override {
    ++waits_;
    for (int at : raise_at_)
      if (at == waits_) ::kill(::getpid(), SIGINT);
    MasterState s = states_.front();
    if (states_.size() > 1) states_.pop_front();
    return s;
  }
  bool Stop(int signal, std::string*) override {
    asked->push_back("stop " + std::to_string(signal));
    return true;
  }
  bool Kill(std::string* err) override {
    asked->push_back("kill");
    *err = "cannot kill the scripted master: it is a script";
    return false;
  }
  std::string TakeOutput() override { return std::exchange(output_, {}); }
  bool engine_writes_master_log() const override { return engine_log_; }

  std::vector<std::string>* asked = nullptr;

 private:
  MasterWords words_;
  std::deque<MasterState> states_;
  std::vector<int> raise_at_;
  std::string output_;
  bool engine_log_;
  int waits_ = 0;
};

// What Supervise returns and says (our stderr) and writes (our stdout) of
// master, and what it asked of it.
struct Supervised {
  int status = 0;
  std::string err, said, out;
  std::vector<std::string> asked;
};

std::string Read(const std::string& path) {
  std::string text, unused;
  (void)fiber::os::ReadWholeFile(path, &text, &unused);
  return text;
}

Supervised Run(ScriptedMaster* master, const std::string& run_dir) {
  Supervised r;
  master->asked = &r.asked;
  SuperviseOptions o;
  o.run_dir = run_dir;
  o.program = "prog";
  // Our stdout and stderr, to files read back once it returned.
  const std::string out_path = run_dir + "/test-stdout", err_path = run_dir + "/test-stderr";
  const fiber::os::Descriptor out(::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)),
      err(::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  std::fflush(stdout);
  const int saved_out = ::dup(1), saved_err = ::dup(2);
  ::dup2(out.get(), 1);
  ::dup2(err.get(), 2);
  r.status = Supervise([&](int*, std::string*) { return std::unique_ptr<RunningMaster>(master); }, o, &r.err);
  ::dup2(saved_out, 1);
  ::dup2(saved_err, 2);
  ::close(saved_out);
  ::close(saved_err);
  r.out = Read(out_path);
  r.said = Read(err_path);
  return r;
}

}  // namespace

TEST_CASE("a master that waits is said to wait once for each reason, and its exit status is fiber run's") {
  const fiber::testing::TempDir dir;
  auto* master = new ScriptedMaster(
      {Pending("no node"), Pending("no node"), Pending("pulling"), Running(), Ended(ExitStatus::Exited(3))});
  const Supervised r = Run(master, dir.path());
  CHECK(r.status == 3);
  CHECK(r.err.empty());
  CHECK(r.said ==
        "fiber: the master runs in the script\n"
        "fiber: the scripted master waits in the script: no node\n"
        "fiber: the scripted master waits in the script: pulling\n");
}

TEST_CASE("a master that ended unseen is fiber's failure, with the engine's reason") {
  const fiber::testing::TempDir dir;
  auto* master = new ScriptedMaster({Running(), Ended(std::nullopt, "the scripted master vanished")});
  const Supervised r = Run(master, dir.path());
  CHECK(r.status == 125);
  CHECK(r.err == "the scripted master vanished");
}

TEST_CASE("the first Ctrl-C stops the master with its signal, a second kills it") {
  const fiber::testing::TempDir dir;
  auto* master = new ScriptedMaster({Running(), Running(), Running(), Ended(ExitStatus::Killed(SIGKILL))}, {1, 2});
  const Supervised r = Run(master, dir.path());
  CHECK(r.status == 128 + SIGKILL);
  CHECK(r.asked == std::vector<std::string>{"stop " + std::to_string(SIGINT), "kill"});
  CHECK(r.said ==
        "fiber: the master runs in the script\n"
        "fiber: stopping the run (Interrupt again to force)\n"
        "fiber: ending the run now\n"
        "fiber: cannot kill the scripted master: it is a script\n");
}

TEST_CASE("a master's output goes to fiber run's output and to the run's master log, unless its engine writes that") {
  const fiber::testing::TempDir dir;
  auto* copied = new ScriptedMaster({Running(), Ended(ExitStatus::Exited(0))}, {}, "hello\n");
  const Supervised r = Run(copied, dir.path());
  CHECK(r.out == "hello\n");
  CHECK(Read(fiber::runs::MasterLogPath(dir.path())) == "hello\n");

  const fiber::testing::TempDir other;
  auto* kept = new ScriptedMaster({Running(), Ended(ExitStatus::Exited(0))}, {}, "hello\n", true);
  const Supervised k = Run(kept, other.path());
  CHECK(k.out == "hello\n");
  CHECK(Read(fiber::runs::MasterLogPath(other.path())).empty());
}
