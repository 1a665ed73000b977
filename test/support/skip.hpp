// A test case that cannot run on this machine (it needs root, or what only
// another engine does) ends with FIBER_SKIP(why): it prints one line,
// "fiber-test skipped: CASE: WHY", which test/run counts and lists apart
// from the passes, so such a case is never taken for one.
#pragma once

#include <string>

namespace fiber::testing {
/// Prints the line for the test case running now (test/main.cpp knows it).
void Skipped(const std::string& why);
}  // namespace fiber::testing

#define FIBER_SKIP(why)                  \
  do {                                   \
    ::fiber::testing::Skipped(why);      \
    return;                              \
  } while (0)
