// A program on PATH, first, that prints a fixed answer and exits with a
// fixed status: Slurm's commands (squeue, sbatch, scancel) as the real ones
// answer, for tests without a Slurm cluster (the Slurm suite drives the
// real ones). The real PATH comes back when it goes.
#pragma once

#include <stdlib.h>
#include <sys/stat.h>

#include <string>

#include "support/temp_dir.hpp"

namespace fiber::testing {

class FakeCommand {
 public:
  FakeCommand(const std::string& name, const std::string& answer, int status = 0) : old_path_(std::getenv("PATH")) {
    const std::string script =
        dir_.write(name, "#!/bin/sh\ncat <<'END'\n" + answer + "END\nexit " + std::to_string(status) + "\n");
    ::chmod(script.c_str(), 0755);
    ::setenv("PATH", (dir_.path() + ":" + old_path_).c_str(), 1);
  }
  ~FakeCommand() { ::setenv("PATH", old_path_.c_str(), 1); }
  FakeCommand(const FakeCommand&) = delete;
  FakeCommand& operator=(const FakeCommand&) = delete;

 private:
  std::string old_path_;
  TempDir dir_;
};

}  // namespace fiber::testing
