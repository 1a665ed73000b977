// fiber logs as a user runs it, on a real run: --all merges the master's
// and the workers' lines in the order they were written, --timestamps
// shows when (RFC 3339, as docker logs -t), and -f follows the run to its
// end and exits with its exit status. The real fiber command and
// test/programs/talking_pool.
#include <doctest/doctest.h>

#include <regex>
#include <sstream>
#include <string>
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
  const std::regex form(R"((\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z) \[(master|w\d+)\] (.*))");
  std::vector<std::string> times;
  for (const std::string& line : Lines(stamped)) {
    std::smatch m;
    REQUIRE_MESSAGE(std::regex_match(line, m, form), line);
    times.push_back(m[1]);
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
  CHECK_MESSAGE(std::regex_search(master_only, std::regex(R"(^\d{4}-\d\d-\d\dT[0-9:.]+Z master 1\n)")), master_only);
  // Not followed: the run's status is not fiber logs'.
  CHECK(master_status == 0);
}
