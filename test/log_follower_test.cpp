// Following a run's logs (cli/log_follower.hpp) with their stamps
// (runs/log_stamps.hpp): lines of several logs merged in the order their
// stamps say, lines not stamped yet at the time their log last changed,
// stamps written as the logs grow, odd stamps files read without harm.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "log_follower.hpp"
#include "runs/log_stamps.hpp"
#include "support/temp_dir.hpp"

using fiber::cli::LogFollower;
using fiber::runs::WallClock;
using fiber::testing::TempDir;

namespace {

WallClock::time_point At(long long ns) {
  return WallClock::time_point(std::chrono::duration_cast<WallClock::duration>(std::chrono::nanoseconds(ns)));
}

void Write(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::app) << text; }

using Seen = std::vector<std::tuple<std::string, std::string, WallClock::time_point>>;

}  // namespace

TEST_CASE("lines of several logs come merged in the order their stamps say") {
  TempDir dir;
  Write(dir.path() + "/master.log", "m1\nm2\n");
  Write(dir.path() + "/master.times", "3 100\n6 400\n");
  ::mkdir((dir.path() + "/workers").c_str(), 0700);
  Write(dir.path() + "/workers/w0.log", "a\nb\nc\n");
  Write(dir.path() + "/workers/w0.times", "2 200\n6 500\n");
  Seen seen;
  LogFollower logs({{dir.path(), "master"}, {dir.path() + "/workers", ""}},
                   [&](const std::string& id, const std::string& line, WallClock::time_point at) {
                     seen.emplace_back(id, line, at);
                   });
  logs.Poll();
  CHECK(seen == Seen{{"master", "m1", At(100)}, {"w0", "a", At(200)}, {"master", "m2", At(400)},
                     {"w0", "b", At(500)}, {"w0", "c", At(500)}});
  // What comes later, unstamped yet: at the time its log last changed.
  seen.clear();
  Write(dir.path() + "/workers/w0.log", "d\n");
  logs.Poll();
  REQUIRE(seen.size() == 1);
  struct stat st {};
  REQUIRE(::stat((dir.path() + "/workers/w0.log").c_str(), &st) == 0);
  CHECK(std::get<2>(seen[0]) == WallClock::time_point(std::chrono::duration_cast<WallClock::duration>(
                                    std::chrono::seconds(st.st_mtim.tv_sec) +
                                    std::chrono::nanoseconds(st.st_mtim.tv_nsec))));
}

TEST_CASE("a follower that stamps writes, beside each log, when it saw it grow") {
  TempDir dir;
  Write(dir.path() + "/w3.log", "one\ntwo\n");
  const auto before = WallClock::now();
  std::vector<std::string> lines;
  LogFollower logs(dir.path(), [&](const std::string&, const std::string& line, WallClock::time_point) {
    lines.push_back(line);
  }, "", LogFollower::Stamps::kWrite);
  logs.Poll();
  CHECK(lines == std::vector<std::string>{"one", "two"});
  const auto stamps = fiber::runs::ReadStamps(dir.path() + "/w3.times");
  REQUIRE(stamps.size() == 1);
  CHECK(stamps[0].end == 8);
  CHECK(stamps[0].at >= before);
  CHECK(fiber::runs::StampOf(stamps, 4, At(0)) == stamps[0].at);
  CHECK(fiber::runs::StampOf(stamps, 9, At(7)) == At(7));  // not stamped yet
}

TEST_CASE("odd stamps files are read without harm: bad lines skipped, none going back in time") {
  TempDir dir;
  Write(dir.path() + "/x.times", "10 500\nnonsense\n-3 7\n20 400\n30 600\n 40\n");
  const auto stamps = fiber::runs::ReadStamps(dir.path() + "/x.times");
  REQUIRE(stamps.size() == 2);
  CHECK(stamps[1].end == 30);
  CHECK(fiber::runs::ReadStamps(dir.path() + "/none.times").empty());
  CHECK(fiber::runs::StampsPath("/r/workers/w3.log") == "/r/workers/w3.times");
}

TEST_CASE("times read as RFC 3339 in UTC with nanoseconds, as docker logs -t shows them") {
  CHECK(fiber::runs::Rfc3339(At(1764160496123456789LL)) == "2025-11-26T12:34:56.123456789Z");
  CHECK(fiber::runs::Rfc3339(At(0)) == "1970-01-01T00:00:00.000000000Z");
}

TEST_CASE("RFC 3339 times read back as Kubernetes writes them, with fewer digits or none; other text is not one") {
  WallClock::time_point at;
  REQUIRE(fiber::runs::ParseRfc3339("2025-11-26T12:34:56.123456789Z", &at));
  CHECK(at == At(1764160496123456789LL));
  REQUIRE(fiber::runs::ParseRfc3339("2025-11-26T12:34:56.5Z", &at));
  CHECK(at == At(1764160496500000000LL));
  REQUIRE(fiber::runs::ParseRfc3339("2025-11-26T12:34:56Z", &at));
  CHECK(at == At(1764160496000000000LL));
  for (const char* odd : {"", "hello", "2025-11-26T12:34:56", "2025-11-26T12:34:56.Z", "2025-11-26T12:34:56.12x4Z",
                          "2025-11-26 12:34:56Z", "2025-11-26T12:34:56.1234567891Z"})
    CHECK_MESSAGE(!fiber::runs::ParseRfc3339(odd, &at), odd);
}

TEST_CASE("a line as an engine gives it with its time loses the time to TakeTime; a line without one is left whole") {
  WallClock::time_point at;
  std::string_view line = "2025-11-26T12:34:56.5Z worker says 10";
  REQUIRE(fiber::runs::TakeTime(&line, &at));
  CHECK(line == "worker says 10");
  CHECK(at == At(1764160496500000000LL));
  for (const char* whole : {"worker says 10", "", "2025-11-26T12:34:56.5Z", "12:34:56 noon"}) {
    line = whole;
    CHECK_FALSE(fiber::runs::TakeTime(&line, &at));
    CHECK(line == whole);
  }
}
