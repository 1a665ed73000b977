#include "backend/local/local_backend.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <thread>

namespace fiber::backend {

LocalBackend::~LocalBackend() { KillAll(); }

bool LocalBackend::Start(const Launch& launch, std::string* err) {
  if (!server_.Ensure(err)) return false;
  // The worker's environment: ours, with the bootstrap's variables in
  // place of any we hold. Its parent is the fork server.
  worker::Bootstrap bootstrap = launch.bootstrap;
  bootstrap.parent_pid = server_.pid();
  const auto vars = worker::ToEnvironment(bootstrap);
  ForkRequest request;
  for (char** e = environ; *e; ++e) {
    std::string entry = *e;
    if (!vars.count(entry.substr(0, entry.find('=')))) request.environment.push_back(std::move(entry));
  }
  for (const auto& [key, value] : vars) request.environment.push_back(key + "=" + value);
  // Its output goes to its log file, when the run keeps one. Of the
  // resources, only memory has a local meaning: a bound on the worker's
  // address space.
  request.log_file = launch.log_file;
  request.worker_id = launch.bootstrap.worker_id;
  request.memory_mb = launch.resources.memory_mb;
  const pid_t pid = server_.Fork(request, err);
  if (pid == 0) return false;
  children_[launch.bootstrap.worker_id] = {pid, server_.generation()};
  worker_of_[pid] = launch.bootstrap.worker_id;
  return true;
}

// A starting worker is busy on a core (loading, linking, its handshake)
// and then waits on the master: a few per core keep the cores busy while
// the master still gets its turn.
int LocalBackend::MaxStarting() const {
  return 4 * static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

void LocalBackend::Kill(const std::string& worker_id) {
  auto it = children_.find(worker_id);
  if (it != children_.end()) server_.Kill(it->second.pid);
}

std::vector<Exit> LocalBackend::Poll() {
  std::vector<Exit> exits;
  std::vector<int> gone;
  for (const ForkedExit& e : server_.Poll(&gone)) {
    auto it = worker_of_.find(e.pid);
    if (it == worker_of_.end()) continue;
    const ExitStatus status = ExitStatus::FromWait(e.wait_status);
    exits.push_back({it->second, EndedWith(status), status});
    children_.erase(it->second);
    worker_of_.erase(it);
  }
  // A fork server's workers die with it (PR_SET_PDEATHSIG).
  for (auto it = children_.begin(); it != children_.end();) {
    if (std::find(gone.begin(), gone.end(), it->second.generation) == gone.end()) {
      ++it;
      continue;
    }
    exits.push_back({it->first, Because(end_word::kSignal, "killed with its fork server"), ExitStatus::Killed(SIGKILL)});
    worker_of_.erase(it->second.pid);
    it = children_.erase(it);
  }
  return exits;
}

void LocalBackend::KillAll() {
  server_.Stop();
  children_.clear();
  worker_of_.clear();
}

}  // namespace fiber::backend
