// The one loop-thread shape: its threads wait on the owner's state under its
// lock, a Notify after a change wakes them, Stop ends every wait (a sleep
// too) and joins, and what escapes a thread's body goes to the owner's
// error path instead of ending the program.
#include "os/loop_thread.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <deque>
#include <stdexcept>
#include <string>
#include <vector>

using fiber::os::LoopThread;

TEST_CASE("its threads take what the owner posts, and Stop ends their wait") {
  LoopThread loop;
  std::deque<int> posted;  // guarded by loop.mu()
  std::vector<int> taken;  // guarded by loop.mu()
  loop.Start(
      [&] {
        fiber::os::MutexLock lock(loop.mu());
        for (;;) {
          loop.Wait(lock, [&] { return !posted.empty(); });
          if (loop.stopping()) return;
          taken.push_back(posted.front());
          posted.pop_front();
          loop.Notify();
        }
      },
      [](const std::string&) {}, 3);
  for (int i = 0; i < 100; ++i) {
    {
      fiber::os::MutexLock lock(loop.mu());
      posted.push_back(i);
    }
    loop.Notify();
  }
  {
    fiber::os::MutexLock lock(loop.mu());
    loop.Wait(lock, [&] { return taken.size() == 100; });
    CHECK(posted.empty());
  }
  loop.Stop();
  CHECK(loop.stopping());
  CHECK(taken.size() == 100);
  loop.Stop();  // again: nothing
}

TEST_CASE("Stop ends a sleep however long it would have been") {
  LoopThread loop;
  bool stopped = false;
  loop.Start(
      [&] {
        fiber::os::MutexLock lock(loop.mu());
        stopped = loop.SleepUntil(lock, LoopThread::Clock::now() + std::chrono::hours(24));
      },
      [](const std::string&) {});
  loop.Stop();  // joins: the test would hang for a day otherwise
  CHECK(stopped);
}

TEST_CASE("a wait with a deadline says when the deadline came first") {
  LoopThread loop;
  fiber::os::MutexLock lock(loop.mu());
  CHECK_FALSE(loop.WaitUntil(lock, LoopThread::Clock::now(), [] { return false; }));
  CHECK(loop.WaitUntil(lock, LoopThread::Clock::now(), [] { return true; }));
  CHECK_FALSE(loop.SleepUntil(lock, LoopThread::Clock::now()));
}

TEST_CASE("what escapes a thread's body goes to its owner's error, described") {
  std::string error;
  {
    LoopThread loop;
    loop.Start([] { throw std::runtime_error("an answer fiber did not expect"); },
               [&](const std::string& what) { error = what; });
  }
  CHECK(error == "std::runtime_error: an answer fiber did not expect");
}
