// Workers as child processes on this machine: the running executable started
// again (/proc/self/exe, same arguments) with the worker's environment.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

#include "backend/backend.hpp"

namespace fiber::backend {

class LocalBackend : public Backend {
 public:
  ~LocalBackend() override;
  const char* name() const override { return "local"; }
  [[nodiscard]] bool Start(const Launch& launch, std::string* err) override;
  void Kill(const std::string& worker_id) override;
  std::vector<Exit> Poll() override;
  void KillAll() override;

 private:
  std::map<std::string, pid_t> children_;
};

/// "exit status N" or "killed by signal N" for a waitpid status.
std::string DescribeWaitStatus(int status);

}  // namespace fiber::backend
