// The eventfd-woken inbox the dispatcher and a worker's client share: what
// threads post reaches the owner whole and in each thread's order, a post
// wakes its poll, and once closed every post is refused with the reason.
#include "os/inbox.hpp"

#include <doctest/doctest.h>
#include <poll.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

using fiber::os::Inbox;

namespace {
bool Readable(int fd) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, 0) == 1;
}
}  // namespace

TEST_CASE("a post wakes the owner, and taking clears the wake") {
  Inbox<int> inbox;
  std::string err;
  REQUIRE(inbox.Open(&err));
  CHECK_FALSE(Readable(inbox.fd()));
  CHECK(inbox.Post(1));
  CHECK(inbox.Post(2));
  CHECK(Readable(inbox.fd()));
  CHECK(inbox.Take() == std::vector<int>{1, 2});
  CHECK_FALSE(Readable(inbox.fd()));
  CHECK(inbox.Take().empty());
}

TEST_CASE("what several threads post all arrives, each thread's in its order") {
  Inbox<std::pair<int, int>> inbox;
  std::string err;
  REQUIRE(inbox.Open(&err));
  constexpr int kThreads = 4, kEach = 2000;
  std::atomic<int> refused{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&inbox, &refused, t] {
      for (int i = 0; i < kEach; ++i) refused += !inbox.Post({t, i});
    });
  std::vector<int> next(kThreads, 0);
  int taken = 0;
  while (taken < kThreads * kEach) {
    pollfd p{inbox.fd(), POLLIN, 0};
    REQUIRE(::poll(&p, 1, 10000) == 1);  // a post never goes without its wake
    for (const auto& [t, i] : inbox.Take()) {
      CHECK(i == next[static_cast<std::size_t>(t)]);
      next[static_cast<std::size_t>(t)] = i + 1;
      ++taken;
    }
  }
  for (auto& t : threads) t.join();
  CHECK(refused == 0);
}

TEST_CASE("a closed inbox refuses posts with its reason, and keeps what came before") {
  Inbox<int> inbox;
  std::string err;
  REQUIRE(inbox.Open(&err));
  CHECK(inbox.Post(1));
  inbox.Close("the run's master has stopped");
  CHECK(inbox.closed());
  std::string why;
  CHECK_FALSE(inbox.Post(2, &why));
  CHECK(why == "the run's master has stopped");
  inbox.Close("a later reason");
  CHECK_FALSE(inbox.Post(3, &why));
  CHECK(why == "the run's master has stopped");
  CHECK(inbox.Take() == std::vector<int>{1});
}
