#include "fiber/init.hpp"
#include "fiber/errors.hpp"

#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>

#include "api/init_state.hpp"
#include "backend/command_line.hpp"
#include "backend/helper_role.hpp"
#include "client/local_client.hpp"
#include "client/remote_client.hpp"
#include "config/misspelt_variables.hpp"
#include "config/resolve.hpp"
#include "config/variables.hpp"
#include "os/demangle.hpp"
#include "diagnostics/log.hpp"
#include "fiber/queue.hpp"
#include "os/descriptor_limit.hpp"
#include "runs/run_dir.hpp"
#include "worker/bootstrap.hpp"
#include "worker/job_supervisor.hpp"
#include "worker/scrub_environment.hpp"
#include "worker/serve_loop.hpp"
#include "worker/this_worker.hpp"

namespace fiber {

namespace {

std::atomic<bool> initialized{false};

// Whether fd is the master log of the run in run_dir (none when empty).
bool IsRunLog(int fd, const std::string& run_dir) {
  if (run_dir.empty()) return false;
  struct stat ours {}, log {};
  return ::fstat(fd, &ours) == 0 && ::stat(runs::MasterLogPath(run_dir).c_str(), &log) == 0 &&
         ours.st_dev == log.st_dev && ours.st_ino == log.st_ino;
}

// A worker serves and exits here; it never returns to main.
[[noreturn]] void ServeAsWorker(const config::Getenv& env) {
  worker::Bootstrap bootstrap;
  std::string err;
  if (!worker::ReadBootstrap(env, &bootstrap, &err)) {
    std::fprintf(stderr, "fiber worker: %s\n", err.c_str());
    std::_Exit(worker::kBadBootstrap);
  }
  // Neither children nor /proc/PID/environ may show the run's secret.
  worker::ScrubEnvironment(config::kSecretVariable);
  // A job of several workers: this returns in each, named.
  if (bootstrap.job_workers > 1) worker::SuperviseJobWorkers(&bootstrap);
  log::SetWorker(bootstrap.worker_id);
  // A worker's stdout is a log file or a pipe, never a terminal: line by
  // line, as on a terminal, so fiber logs -f and the master's stderr show
  // each line when it is printed, and a killed worker loses no whole line.
  std::setvbuf(stdout, nullptr, _IOLBF, BUFSIZ);
  worker::SetThisWorker(bootstrap);
  // Queues, pipes and managers reach the master on a second connection.
  client::RunClient::SetMaker(
      []() -> std::unique_ptr<client::RunClient> {
        return std::make_unique<client::RemoteClient>(*worker::ThisWorker());
      });
  // A local worker dies with its master at once; elsewhere heartbeats
  // catch a dead master.
  if (bootstrap.parent_pid > 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != bootstrap.parent_pid) std::_Exit(worker::kMasterLost);
  }
  int status = worker::kInternalError;
  try {
    // A call's result goes once its queue puts are in (api/queue.cpp).
    status = worker::Serve(bootstrap, [] { detail::queue_flush_all("a put in this task"); });
  } catch (const std::exception& e) {
    log::Error("internal error (" + CurrentExceptionType() + ": " + e.what() + "); exiting");
  } catch (...) {
    log::Error("internal error (" + CurrentExceptionType() + "); exiting");
  }
  std::exit(status);
}

// An exception that escapes main ends the program with one line, not with
// "terminate called after throwing..." after fiber has said the same: the
// line once, and status 1 as for any failed program.
[[noreturn]] void EndUncaught() {
  if (std::exception_ptr e = std::current_exception()) {
    std::string what = "an exception of type " + CurrentExceptionType();
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      what = x.what();
    } catch (...) {
    }
    if (!log::SaidError(what)) log::Error(what);
    std::fflush(nullptr);  // what the program printed before
    std::_Exit(1);
  }
  std::abort();  // std::terminate called without an exception
}

}  // namespace

bool detail::initialized() { return fiber::initialized; }

void detail::RequireMaster(const std::string& what) {
  if (worker::ThisWorker())
    throw Error(what + " can be made only by the run's master, not in a worker (a task, a "
                "Process or a manager)");
  if (!fiber::initialized)
    throw ConfigError("call fiber::init(argc, argv) first thing in main, before making " + what);
}

void init(int argc, char** argv) {
  backend::SetCommandLine(argc, argv);
  const config::Getenv env = config::ProcessEnvironment;
  // A helper (a local backend's fork server) returns from here only in a
  // worker it forked, with that worker's environment.
  backend::RunHelperRole(env);
  if (worker::IsWorkerProcess(env)) ServeAsWorker(env);
  // The master: every connection to the run's port takes a descriptor.
  os::RaiseDescriptorLimit();
  // The same files and variables as the fiber command reads, so a program
  // started without it behaves the same. A removed current directory only
  // means there is no project file to look for.
  config::Inputs inputs;
  inputs.getenv = env;
  std::error_code ec;
  inputs.cwd = std::filesystem::current_path(ec).string();
  // Under fiber run, which warned already.
  if (!env(config::kRunIdVariable))
    for (const std::string& warning : config::MisspeltVariables(environ))
      std::fprintf(stderr, "fiber: warning: %s\n", warning.c_str());
  config::Resolved resolved;
  std::string err;
  if (!config::Resolve(inputs, &resolved, &err)) {
    std::fprintf(stderr, "fiber: error: %s\n", err.c_str());
    std::exit(2);
  }
  // Under fiber run the command said so already.
  if (!env(config::kRunIdVariable))
    for (const std::string& line : resolved.refused) std::fprintf(stderr, "fiber: warning: %s\n", line.c_str());

  std::set_terminate(EndUncaught);
  log::SetVerbose(resolved.settings.verbose);
  // A detached run's stdout is its log (fiber run -d): line by line, so
  // fiber logs -f shows each line when printed and fiber stop loses none.
  if (IsRunLog(1, resolved.settings.run_dir)) std::setvbuf(stdout, nullptr, _IOLBF, BUFSIZ);
  config::SetCurrent(resolved.settings);
  client::RunClient::SetMaker(client::MakeLocalClient);
  initialized = true;
}

}  // namespace fiber
