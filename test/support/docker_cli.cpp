#include "support/docker_cli.hpp"

#include <unistd.h>

#include <cstdlib>
#include <sstream>

#include "subprocess.hpp"

namespace fiber::testing {

namespace {

std::string DockerPath() {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':'))
    if (::access((dir + "/docker").c_str(), X_OK) == 0) return dir + "/docker";
  return "/usr/bin/docker";
}

}  // namespace

std::tuple<int, std::string, std::string> Docker(const std::vector<std::string>& args) {
  std::vector<std::string> argv = args;
  argv.insert(argv.begin(), DockerPath());
  Child c = spawn(argv, {});
  std::string out = read_all(c.stdout_fd, 300);
  std::string err = read_all(c.stderr_fd, 300);
  return {wait_exit(c, 300), out, err};
}

ImageGuard::~ImageGuard() {
  auto [status, ids, err] = Docker({"ps", "-aq", "--filter", "ancestor=" + reference_});
  std::istringstream lines(ids);
  std::string id;
  while (std::getline(lines, id))
    if (!id.empty()) Docker({"rm", "-f", id});
  Docker({"rmi", "-f", reference_});
}

}  // namespace fiber::testing
