// Images for tests of the container backend, built here since nothing can be
// pulled. One whole program is what the packager makes (image::Package,
// loaded with image::LoadIntoEngine). The images a packager would never
// make, with the program, its dynamic loader or a library left out, are the
// programs at their paths on this machine with the rest of their shared
// libraries (image/shared_libraries.hpp), imported into the engine (POST
// /images/create?fromSrc=-) with no base image; the same contents give the
// same tag, so a test run imports one once.
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

/// The engine the container tests drive: FIBER_TEST_ENGINE (docker, the
/// default, or podman; test/run runs them once more against Podman), which
/// is also the backend's name.
std::string TestEngineName();
/// That engine at its standard socket; fails the test when none answers.
engine::Client TestEngine();

}  // namespace fiber::testing
