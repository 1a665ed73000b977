#include "backend/slurm/slurm_command.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <algorithm>
#include <initializer_list>
#include <sstream>
#include <thread>

#include "backend/backend.hpp"
#include "os/run_capture.hpp"

namespace fiber::backend {

namespace {

std::string NotInstalled(const std::string& name) {
  return name + " is not installed (no such program on PATH): the slurm backend runs Slurm's "
                "commands, as on a cluster's login node";
}

bool OnPath(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (::access(((dir.empty() ? "." : dir) + "/" + name).c_str(), X_OK) == 0) return true;
  return false;
}

}  // namespace

bool CheckSlurmCommands(std::string* err) {
  for (const char* name : {"sbatch", "squeue", "scancel"})
    if (!OnPath(name)) {
      *err = NotInstalled(name);
      return false;
    }
  return true;
}

namespace {

// Whether said holds one of words.
bool SaysAnyOf(const std::string& said, std::initializer_list<const char*> words) {
  return std::any_of(words.begin(), words.end(), [&](const char* w) { return said.find(w) != std::string::npos; });
}

}  // namespace

bool TransientSlurmError(const std::string& said) {
  return SaysAnyOf(said, {"Socket timed out", "Resource temporarily unavailable", "Unable to contact slurm controller",
                          "did not answer within", "Zero Bytes were transmitted or received"});
}

bool SubmitLimitError(const std::string& said) {
  return SaysAnyOf(said, {"MaxSubmitJob", "Job violates accounting/QOS policy", "temporarily unable to accept job",
                          "queue full", "Job creation temporarily disabled"});
}

namespace {

// One try of argv; false with *err as RunSlurm says it.
bool RunSlurmOnce(const std::vector<std::string>& argv, const std::string& input, std::string* out,
                  std::string* err, const std::vector<std::string>& env) {
  Capture what;
  what.argv = argv;
  what.input = input;
  what.env = env;
  what.timeout_ms = std::chrono::milliseconds(kSlurmCommandTimeout).count();
  // sbatch retries a refused submission for two minutes on its own (a full
  // queue): fiber waits for room itself, without a command hanging.
  what.give_up = [](const std::string& errors) {
    return errors.find("sleeping and retrying") != std::string::npos;
  };
  Captured run;
  std::string start_err;
  const std::string& name = argv.front();
  if (!RunCapture(what, &run, &start_err)) {
    *err = run.start_errno == ENOENT ? NotInstalled(name) : start_err;
    return false;
  }
  if (run.gave_up) {
    *err = name + " failed: " + LastLine(run.errors);
    return false;
  }
  if (run.timed_out) {
    *err = name + " did not answer within " + std::to_string(kSlurmCommandTimeout.count()) +
           " s (is slurmctld reachable?)";
    return false;
  }
  if (run.status != 0) {
    const std::string said = LastLine(run.errors);
    *err = name + " failed (" + ExitStatus::FromCode(run.status).Describe() + ")" + (said.empty() ? "" : ": " + said);
    return false;
  }
  *out = std::move(run.output);
  return true;
}

}  // namespace

bool RunSlurm(const std::vector<std::string>& argv, const std::string& input, std::string* out,
              std::string* err, const std::vector<std::string>& env, std::chrono::milliseconds retry_timeout) {
  const auto give_up_at = std::chrono::steady_clock::now() + retry_timeout;
  std::chrono::seconds wait{1};
  for (int tries = 1;; ++tries) {
    if (RunSlurmOnce(argv, input, out, err, env)) return true;
    if (!TransientSlurmError(*err) || std::chrono::steady_clock::now() + wait > give_up_at) {
      if (tries > 1) *err += " (tried " + std::to_string(tries) + " times)";
      return false;
    }
    std::this_thread::sleep_for(wait);
    wait = std::min<std::chrono::seconds>(wait * 2, std::chrono::seconds(8));
  }
}

}  // namespace fiber::backend
