// Workers as processes on this machine: the running executable, started
// again (/proc/self/exe, same arguments) once as the backend's fork server,
// which forks each worker with the worker's environment
// (backend/local/fork_server.hpp; this side of it: fork_client.hpp).
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "backend/local/fork_client.hpp"

namespace fiber::backend {

class LocalBackend : public Backend {
 public:
  ~LocalBackend() override;
  const char* name() const override { return "local"; }
  [[nodiscard]] bool Start(const Launch& launch, std::string* err) override;
  void Kill(const std::string& worker_id) override;
  std::vector<Exit> Poll() override;
  void KillAll() override;
  int MaxStarting() const override;

 private:
  struct Child {
    pid_t pid;
    int generation;  // of the fork server that forked it
  };
  ForkClient server_;
  std::map<std::string, Child> children_;
  std::map<pid_t, std::string> worker_of_;
};

}  // namespace fiber::backend
