#include "support/docker_cli.hpp"

#include <sstream>

#include "subprocess.hpp"

namespace fiber::testing {

std::tuple<int, std::string, std::string> Docker(const std::vector<std::string>& args) {
  std::vector<std::string> argv = args;
  argv.insert(argv.begin(), on_path("docker"));
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
