// A program on PATH, first, that prints a fixed answer and exits with a
// fixed status, or runs a script: Slurm's commands (squeue, sbatch,
// scancel) as the real ones answer, busy or limited controllers too, for tests without a Slurm cluster (the Slurm suite drives the
// real ones). The real PATH comes back when it goes.
#pragma once

#include <stdlib.h>
#include <sys/stat.h>

#include <fstream>
#include <string>

#include "support/temp_dir.hpp"

namespace fiber::testing {

class FakeCommand {
 public:
  FakeCommand(const std::string& name, const std::string& answer, int status = 0)
      : FakeCommand(name, Script{"cat <<'END'\n" + answer + "END\nexit " + std::to_string(status) + "\n"}) {}
  /// A command that runs body (sh) instead, in which "$dir" is dir().
  struct Script {
    std::string body;
  };
  FakeCommand(const std::string& name, const Script& script) : old_path_(std::getenv("PATH")) {
    const std::string file = dir_.write(name, "#!/bin/sh\ndir=$(dirname \"$0\")\n" + script.body);
    ::chmod(file.c_str(), 0755);
    ::setenv("PATH", (dir_.path() + ":" + old_path_).c_str(), 1);
  }
  ~FakeCommand() { ::setenv("PATH", old_path_.c_str(), 1); }
  FakeCommand(const FakeCommand&) = delete;
  FakeCommand& operator=(const FakeCommand&) = delete;
  /// Where the command is, for files its script reads and writes.
  const std::string& dir() const { return dir_.path(); }
  /// How many lines the script wrote to "$dir/runs" (one a run, if it says so).
  int runs() const {
    std::ifstream in(dir_.path() + "/runs");
    int n = 0;
    for (std::string line; std::getline(in, line);) ++n;
    return n;
  }

 private:
  std::string old_path_;
  TempDir dir_;
};

}  // namespace fiber::testing
