#include "support/packaged_images.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <mutex>
#include <set>

#include "subprocess.hpp"
#include "support/test_image.hpp"

namespace fiber::testing {

namespace {

class Removal {
 public:
  void Add(std::string program) {
    std::lock_guard<std::mutex> lock(mu_);
    programs_.insert(std::move(program));
  }
  ~Removal() {
    for (const std::string& program : programs_) {
      // The engine the tests used: the workers' engine of that backend.
      Child c = spawn({built_program("../cli/fiber"), "image", "prune", program},
                      {{"FIBER_BACKEND", TestEngineName()}}, "");
      const std::string out = read_all(c.stdout_fd, 60);
      const std::string err = read_all(c.stderr_fd, 60);
      ::close(c.stdout_fd);
      ::close(c.stderr_fd);
      if (wait_exit(c, 60) != 0)
        std::fprintf(stderr, "cannot remove the images packaged of %s: %s%s", program.c_str(), out.c_str(),
                     err.c_str());
    }
  }

 private:
  std::mutex mu_;
  std::set<std::string> programs_;  // guarded by mu_
};

Removal& Programs() {
  static Removal removal;
  return removal;
}

}  // namespace

void RemovePackagedImagesAtExit(const std::string& program) {
  // Named by its file, as fiber named its image (/proc/self/exe is "exe").
  Programs().Add(std::filesystem::canonical(program).string());
}

}  // namespace fiber::testing
