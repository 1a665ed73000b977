// Images for tests of the container backend, built here since nothing can be
// pulled: the given programs at their paths on this machine, with every
// shared library they load and their dynamic loader (their ldd closure),
// imported into the engine (POST /images/create?fromSrc=-) with no base
// image. The same contents give the same tag, so a test run imports an image
// once. A stand-in for the image packager (issue 10's images), to be replaced
// by it.
#pragma once

#include <string>
#include <vector>

#include "engine/engine_client.hpp"

namespace fiber::testing {

struct TestImage {
  std::vector<std::string> programs;
  /// Leave things out, to see what a worker makes of their absence.
  bool without_programs = false;
  bool without_loader = false;
  std::string without_library;  // a library's file name, e.g. "libzmq.so.5"
};

/// Imports the image (unless the engine has it); *reference names it,
/// "fiber-test:HASH".
[[nodiscard]] bool BuildTestImage(const engine::Client& engine, const TestImage& image,
                                  std::string* reference, std::string* err);

/// The engine at its standard socket; fails the test when none answers.
engine::Client TestEngine();

}  // namespace fiber::testing
