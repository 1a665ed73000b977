#include "image/stripped_copies.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "os/run_capture.hpp"

namespace fiber::image {

StrippedCopies::StrippedCopies(std::string parent) : parent_(std::move(parent)) {}

StrippedCopies::~StrippedCopies() {
  std::error_code ec;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
}

std::string StrippedCopies::Of(const std::string& file) {
  if (no_strip_) return "";
  if (dir_.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(parent_, ec);
    std::string pattern = parent_ + "/.strip-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) return "";
    dir_ = pattern;
  }
  const std::string copy = dir_ + "/" + std::to_string(made_++);
  Capture what;
  what.argv = {"strip", "--strip-debug", "-o", copy, file};
  what.timeout_ms = 120000;
  Captured run;
  std::string err;
  if (!RunCapture(what, &run, &err)) {
    no_strip_ = run.start_errno == ENOENT;
    return "";
  }
  if (run.status != 0 || run.timed_out) {
    ::unlink(copy.c_str());
    return "";
  }
  return copy;
}

}  // namespace fiber::image
