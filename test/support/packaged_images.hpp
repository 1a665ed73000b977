// The images fiber packages of a test's programs into the test engine
// (localhost/fiber/NAME: fiber run without --image, and a whole-program test
// image), removed once the test program ends with the real command's fiber
// image prune PROGRAM, so that a test run leaves none of them behind
// (test/run checks the engine at the end of its container stage). They stay
// until then: the tests of one program share one image.
#pragma once

#include <string>

namespace fiber::testing {

/// Has fiber image prune remove program's packaged images from the test
/// engine (FIBER_TEST_ENGINE) when this process exits. Called from the
/// tests, never at start-up: a test program that is also its pools' worker
/// must not prune from its containers.
void RemovePackagedImagesAtExit(const std::string& program);

}  // namespace fiber::testing
