#include "backend/command_line.hpp"

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

}  // namespace fiber::backend
