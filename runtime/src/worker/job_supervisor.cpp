#include "worker/job_supervisor.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "os/exit_status.hpp"
#include "worker/serve_loop.hpp"
#include "worker/worker_id.hpp"

namespace fiber::worker {

namespace {

// The workers' pids, 0 once ended: read by the signal handler, which only
// sends signals.
std::vector<pid_t> children;

void Forward(int signal) {
  for (const pid_t pid : children)
    if (pid > 0) ::kill(pid, signal);
}

}  // namespace

void SuperviseJobWorkers(Bootstrap* bootstrap) {
  long first = 0;
  (void)WorkerNumber(bootstrap->worker_id, &first);  // checked by ReadBootstrap
  const pid_t supervisor = ::getpid();
  children.assign(static_cast<std::size_t>(bootstrap->job_workers), 0);
  std::fflush(nullptr);  // nothing written so far is written twice
  for (std::size_t i = 0; i < children.size(); ++i) {
    const std::string id = WorkerId(static_cast<std::uint64_t>(first) + i);
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != supervisor) std::_Exit(kMasterLost);  // it died already
      children.clear();
      bootstrap->worker_id = id;
      bootstrap->job_workers = 1;
      ::setenv(config::kWorkerIdVariable, id.c_str(), 1);  // what the worker's program may read
      ::unsetenv(config::kJobWorkersVariable);
      return;
    }
    // A worker not forked never connects: the master replaces it after
    // its start_timeout, as any.
    if (pid < 0) std::fprintf(stderr, "fiber job: cannot fork worker %s: %s\n", id.c_str(), std::strerror(errno));
    children[i] = pid > 0 ? pid : 0;
  }
  struct sigaction forward {};
  forward.sa_handler = Forward;
  for (const int signal : {SIGTERM, SIGINT, SIGHUP}) ::sigaction(signal, &forward, nullptr);
  std::size_t left = 0;
  for (const pid_t pid : children) left += pid > 0;
  int code = 0;
  while (left > 0) {
    int wait_status = 0;
    const pid_t pid = ::waitpid(-1, &wait_status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      break;
    }
    std::size_t i = 0;
    while (i < children.size() && children[i] != pid) ++i;
    if (i == children.size()) continue;  // an orphan it reaped as a container's first process
    children[i] = 0;
    --left;
    const fiber::ExitStatus status = fiber::ExitStatus::FromWait(wait_status);
    if (status == fiber::ExitStatus::Exited(0)) continue;
    code = status.code();
    std::fprintf(stderr, "fiber job: worker %s (pid %ld) ended: %s\n",
                 WorkerId(static_cast<std::uint64_t>(first) + i).c_str(), static_cast<long>(pid),
                 status.Describe().c_str());
  }
  std::exit(code);
}

}  // namespace fiber::worker
