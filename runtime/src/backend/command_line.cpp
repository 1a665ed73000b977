#include "backend/command_line.hpp"

#include <limits.h>
#include <unistd.h>

#include <mutex>

namespace fiber::backend {

namespace {
std::mutex mu;
std::vector<std::string> command_line{"fiber-worker"};
}  // namespace

void SetCommandLine(int argc, char** argv) {
  std::lock_guard<std::mutex> lock(mu);
  command_line.assign(argv, argv + argc);
  if (command_line.empty()) command_line.push_back("fiber-worker");
}

std::vector<std::string> CommandLine() {
  std::lock_guard<std::mutex> lock(mu);
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
