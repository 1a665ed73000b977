// A directory made fresh for one test and removed, with all it holds, when
// the test ends; for tests of files a program looks for.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace fiber::testing {

class TempDir {
 public:
  /// Under $TMPDIR, else /tmp.
  TempDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string name = std::string(tmp && *tmp ? tmp : "/tmp") + "/fiber-test-XXXXXX";
    // Canonical, as the current directory reads once a program is in it.
    path_ = std::filesystem::canonical(mkdtemp(name.data())).string();
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  /// path()/relative, its directories made.
  std::string dir(const std::string& relative) const {
    const std::string full = path_ + "/" + relative;
    std::filesystem::create_directories(full);
    return full;
  }
  /// Writes text to path()/relative, making its directories; the full path.
  std::string write(const std::string& relative, const std::string& text) const {
    const std::filesystem::path full = path_ + "/" + relative;
    std::filesystem::create_directories(full.parent_path());
    std::ofstream(full) << text;
    return full.string();
  }

 private:
  std::string path_;
};

}  // namespace fiber::testing
