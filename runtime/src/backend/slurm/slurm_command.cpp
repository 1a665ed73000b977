#include "backend/slurm/slurm_command.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <sstream>

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

bool RunSlurm(const std::vector<std::string>& argv, const std::string& input, std::string* out,
              std::string* err, const std::vector<std::string>& env) {
  Capture what;
  what.argv = argv;
  what.input = input;
  what.env = env;
  what.timeout_ms = std::chrono::milliseconds(kSlurmCommandTimeout).count();
  Captured run;
  std::string start_err;
  const std::string& name = argv.front();
  if (!RunCapture(what, &run, &start_err)) {
    *err = run.start_errno == ENOENT ? NotInstalled(name) : start_err;
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

}  // namespace fiber::backend
