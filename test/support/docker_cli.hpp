// The docker command, for tests that check from outside what fiber did
// through the engine's API (an image runs, a pushed image pulls back) and
// remove what they made. Only tests use it; fiber itself never runs it.
#pragma once

#include <string>
#include <tuple>
#include <vector>

namespace fiber::testing {

/// Runs docker with args: exit status, stdout, stderr.
std::tuple<int, std::string, std::string> Docker(const std::vector<std::string>& args);

/// Removes the image reference from the engine when it goes out of scope,
/// with the containers made from it; for every image a test makes.
class ImageGuard {
 public:
  explicit ImageGuard(std::string reference) : reference_(std::move(reference)) {}
  ~ImageGuard();
  ImageGuard(const ImageGuard&) = delete;
  ImageGuard& operator=(const ImageGuard&) = delete;

 private:
  std::string reference_;
};

}  // namespace fiber::testing
