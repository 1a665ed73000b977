// http::StreamSet against a real HTTP server (test/programs/echo_http.py)
// on a Unix socket, as the container engine listens: many streams followed
// by one thread, each one's body whole and its end said once; Cancel, and
// the set's own end, end streams held open; no server is one clear error.
#include <doctest/doctest.h>

#include <condition_variable>
#include <dirent.h>
#include <map>
#include <mutex>
#include <string>

#include "http/stream_set.hpp"
#include "support/echo_server.hpp"
#include "support/fiber_command.hpp"
#include "support/temp_dir.hpp"

using fiber::http::StreamSet;
using fiber::testing::EchoServer;

namespace {

// What the set told of its streams, waited on by the test.
struct Told {
  struct Stream {
    bool began = false;
    std::string body;
    int ends = 0;
    bool answered = false;
    long status = 0;
    std::string err;
  };
  std::mutex mu;
  std::condition_variable changed;
  std::map<int, Stream> streams;

  StreamSet::Id Add(StreamSet& set, const std::string& socket, const std::string& path, int n) {
    fiber::http::Request q;
    q.method = "GET";
    q.url = "http://engine" + path;
    q.unix_socket = socket;
    q.timeout_ms = 0;
    q.on_headers = [this, n](const fiber::http::Response&) { Change([&] { streams[n].began = true; }); };
    q.on_body = [this, n](std::string_view chunk) {
      Change([&] { streams[n].body.append(chunk); });
      return true;
    };
    return set.Add(std::move(q), [this, n](bool answered, const fiber::http::Response& r, const std::string& err) {
      Change([&] {
        Stream& s = streams[n];
        ++s.ends;
        s.answered = answered;
        s.status = r.status;
        s.err = err;
      });
    });
  }
  template <class F>
  void Change(F f) {
    std::lock_guard<std::mutex> lock(mu);
    f();
    changed.notify_all();
  }
  // Waits (up to a minute) until ready() holds of every stream of the n.
  template <class Ready>
  bool WaitAll(int n, Ready ready) {
    std::unique_lock<std::mutex> lock(mu);
    return changed.wait_for(lock, std::chrono::seconds(60), [&] {
      for (int i = 0; i < n; ++i)
        if (!ready(streams[i])) return false;
      return true;
    });
  }
};

// The server on its socket in a directory of the test's, and what the set
// told.
struct Served {
  fiber::testing::TempDir dir;
  const std::string socket = dir.path() + "/engine.sock";
  EchoServer server{socket};
  Told told;
};

int ThreadsOfThisProcess() {
  int n = 0;
  DIR* dir = ::opendir("/proc/self/task");
  REQUIRE(dir != nullptr);
  while (const dirent* e = ::readdir(dir)) n += e->d_name[0] != '.';
  ::closedir(dir);
  return n;
}

}  // namespace

TEST_CASE("one thread follows many streams at once: each one's body whole, each end said once") {
  Served served;
  Told& told = served.told;
  const std::string& socket = served.socket;
  const int threads_before = ThreadsOfThisProcess();
  {
    StreamSet set;
    constexpr int kStreams = 16;
    for (int i = 0; i < kStreams; ++i) told.Add(set, socket, "/count/5", i);
    CHECK(ThreadsOfThisProcess() == threads_before + 1);
    REQUIRE(told.WaitAll(kStreams, [](const Told::Stream& s) { return s.ends > 0; }));
    for (int i = 0; i < kStreams; ++i) {
      const Told::Stream& s = told.streams[i];
      CHECK_MESSAGE(s.began, s.err);
      CHECK(s.body == "line 0\nline 1\nline 2\nline 3\nline 4\n");
      CHECK(s.answered);
      CHECK(s.status == 200);
    }
    CHECK(fiber::testing::eventually([&] { return set.open() == 0; }));  // said as each end is
  }
  for (const auto& [n, s] : told.streams) CHECK(s.ends == 1);
  CHECK(ThreadsOfThisProcess() == threads_before);
}

TEST_CASE("Cancel ends one held stream, said before it returns; the set's end ends the others") {
  Served served;
  Told& told = served.told;
  const std::string& socket = served.socket;
  {
    StreamSet set;
    std::vector<StreamSet::Id> ids;
    for (int i = 0; i < 3; ++i) ids.push_back(told.Add(set, socket, "/hold", i));
    REQUIRE(told.WaitAll(3, [](const Told::Stream& s) { return s.began; }));
    set.Cancel(ids[1]);
    {
      std::lock_guard<std::mutex> lock(told.mu);
      CHECK(told.streams[1].ends == 1);
      CHECK(told.streams[1].answered);  // as when a callback stops one
      CHECK(told.streams[0].ends == 0);
      CHECK(told.streams[2].ends == 0);
    }
    CHECK(set.open() == 2);
    set.Cancel(ids[1]);  // ended already: nothing
  }
  for (const auto& [n, s] : told.streams) {
    CHECK(s.ends == 1);
    CHECK(s.answered);
    CHECK(s.err.empty());
  }
}

TEST_CASE("an error status is an answer; no server is one error naming the socket") {
  Served served;
  Told& told = served.told;
  const std::string& socket = served.socket;
  StreamSet set;
  told.Add(set, socket, "/missing", 0);
  told.Add(set, served.dir.path() + "/nobody.sock", "/hold", 1);
  REQUIRE(told.WaitAll(2, [](const Told::Stream& s) { return s.ends > 0; }));
  CHECK(told.streams[0].answered);
  CHECK(told.streams[0].status == 404);
  CHECK_FALSE(told.streams[1].answered);
  CHECK_MESSAGE(told.streams[1].err.find(served.dir.path() + "/nobody.sock") != std::string::npos, told.streams[1].err);
  CHECK(fiber::testing::eventually([&] { return set.open() == 0; }));  // said as each end is
}
