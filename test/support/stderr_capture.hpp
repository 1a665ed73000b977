// Captures what this process writes to stderr while alive, for tests of
// what the runtime logs.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace fiber::testing {

class StderrCapture {
 public:
  StderrCapture() : path_("/tmp/fiber-stderr-" + std::to_string(getpid())) {
    std::fflush(stderr);
    saved_ = dup(2);
    const int fd = open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 2);
    close(fd);
  }
  ~StderrCapture() { restore(); unlink(path_.c_str()); }
  /// What was written, capturing no more.
  std::string text() {
    restore();
    return peek();
  }
  /// What was written so far, still capturing.
  std::string peek() const {
    std::ifstream in(path_);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  /// Waits up to 10 s for needle to be written count times.
  bool wait_for(const std::string& needle, int count = 1) const {
    for (int i = 0; i < 1000; ++i) {
      const std::string t = peek();
      int found = 0;
      for (auto at = t.find(needle); at != std::string::npos; at = t.find(needle, at + 1)) ++found;
      if (found >= count) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

 private:
  void restore() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    dup2(saved_, 2);
    close(saved_);
    saved_ = -1;
  }
  std::string path_;
  int saved_ = -1;
};

}  // namespace fiber::testing
