// fiber logs as a user runs it, on a real run: --all merges the master's
// and the workers' lines in the order they were written, --timestamps
// shows when (RFC 3339, as docker logs -t), and -f follows the run to its
// end and exits with its exit status. The real fiber command and
// test/programs/talking_pool.
#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "subprocess.hpp"
#include "support/fiber_command.hpp"

using fiber::testing::Fiber;

namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// "[w0] worker 0" as "worker 0": who said it is in the text.
std::string Said(const std::string& line) {
  const std::size_t end = line.find("] ");
  return end == std::string::npos ? line : line.substr(end + 2);
}

// True when text starts with an RFC 3339 UTC time to the nanosecond,
// 2026-11-26T15:57:43.123456789Z. (No std::regex: GCC 12 warns inside it
// under the sanitizers, and warnings are errors.)
constexpr std::string_view kTimeShape = "dddd-dd-ddTdd:dd:dd.dddddddddZ";
constexpr std::size_t kTimeSize = kTimeShape.size();

bool StartsWithTime(const std::string& text) {
  if (text.size() < kTimeSize) return false;
  for (std::size_t i = 0; i < kTimeSize; ++i) {
    const bool digit = text[i] >= '0' && text[i] <= '9';
    if (kTimeShape[i] == 'd' ? !digit : text[i] != kTimeShape[i]) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("logs -f --all follows a run's master and worker lines in the order written, then exits with its "
          "status; --timestamps shows when each came") {
  Fiber fiber;
  auto [status, out, err] = fiber.Run({"run", "--detach", "--name", "talk", built_program("talking_pool"), "3"});
  REQUIRE_MESSAGE(status == 0, err);
  auto [followed, logs, logs_err] = fiber.Run({"logs", "-f", "--all", "talk"});
  CHECK(followed == 3);
  CHECK_MESSAGE(logs_err.find("exited with status 3") != std::string::npos, logs_err);
  std::vector<std::string> said;
  for (const std::string& line : Lines(logs)) said.push_back(Said(line));
  const std::vector<std::string> in_order = {"worker 0", "master 1", "worker 2", "master 3"};
  CHECK_MESSAGE(said == in_order, logs);
  CHECK(logs.find("[master] master 1\n") != std::string::npos);

  auto [shown, stamped, stamped_err] = fiber.Run({"logs", "--all", "--timestamps", "talk"});
  CHECK_MESSAGE(shown == 0, stamped_err);
  std::vector<std::string> times;
  for (const std::string& line : Lines(stamped)) {
    REQUIRE_MESSAGE(StartsWithTime(line), line);
    const std::string who = line.substr(kTimeSize, 3);
    CHECK_MESSAGE((line.compare(kTimeSize, 9, " [master]") == 0 || who == " [w"), line);
    times.push_back(line.substr(0, kTimeSize));
  }
  REQUIRE(times.size() == 4);
  // In time order, a second or so apart, and today's.
  for (std::size_t i = 1; i < times.size(); ++i) CHECK_MESSAGE(times[i - 1] < times[i], stamped);
  char today[16];
  const time_t now = ::time(nullptr);
  tm utc{};
  ::gmtime_r(&now, &utc);
  std::strftime(today, sizeof today, "%Y-%m-%d", &utc);
  CHECK_MESSAGE(stamped.find(today) != std::string::npos, stamped);
  // One worker's, and the master's alone, with their times too.
  auto [master_status, master_only, master_err] = fiber.Run({"logs", "-t", "talk"});
  CHECK(Lines(master_only).size() == 2);
  CHECK_MESSAGE(StartsWithTime(master_only), master_only);
  CHECK_MESSAGE(master_only.compare(kTimeSize, 10, " master 1\n") == 0, master_only);
  // Not followed: the run's status is not fiber logs'.
  CHECK(master_status == 0);
}
