// The pid of a Process once it has connected to the master, for tests that
// signal it; fails the test when it has not connected in 30 s.
#pragma once

#include <doctest/doctest.h>

#include <fiber/process.hpp>

#include <chrono>
#include <thread>

inline long connected_pid(const fiber::Process& p) {
  for (int i = 0; i < 600; ++i) {
    if (long pid = p.pid()) return pid;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  FAIL("the process did not connect within 30 s");
  return 0;
}
