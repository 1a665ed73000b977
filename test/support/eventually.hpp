// Waiting in a test for what another thread or process brings about:
// polled, with a bound that guards against a hang and is no timing.
#pragma once

#include <chrono>
#include <thread>

namespace fiber::testing {

/// Polls until done() holds; false after 30 s.
template <class F>
bool Eventually(F done) {
  for (int i = 0; i < 3000; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

}  // namespace fiber::testing
