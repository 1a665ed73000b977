#include "backend/command_line.hpp"

#include <limits.h>
#include <unistd.h>


#include "os/mutex.hpp"

namespace fiber::backend {

namespace {
os::Mutex mu;
std::vector<std::string> command_line FIBER_GUARDED_BY(mu){"fiber-worker"};
}  // namespace

void SetCommandLine(int argc, char** argv) {
  os::MutexLock lock(mu);
  command_line.assign(argv, argv + argc);
  if (command_line.empty()) command_line.push_back("fiber-worker");
}

std::vector<std::string> CommandLine() {
  os::MutexLock lock(mu);
  return command_line;
}

std::vector<std::string> CommandLineAtOwnPath() {
  std::vector<std::string> command = CommandLine();
  char path[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  if (n > 0) command.front().assign(path, static_cast<std::size_t>(n));
  return command;
}

}  // namespace fiber::backend
