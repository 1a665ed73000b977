// When each piece of a run's log files was written: beside each log
// (master.log, workers/w3.log) a file of stamps (master.times,
// workers/w3.times), one line "END UNIX_NANOSECONDS" per piece, saying the
// log's first END bytes were there by then. fiber run stamps what it sees
// as it follows the logs (a tenth of a second apart), whoever wrote them
// (the program, a worker, an engine), so that fiber logs can merge a run's
// logs in time order and show when each line came (--timestamps), the same
// on every backend. Plain functions; thread-safe as any.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace fiber::runs {

using WallClock = std::chrono::system_clock;

struct LogStamp {
  long long end = 0;  // the log's bytes before this offset were there by at
  WallClock::time_point at;
};

/// "workers/w3.times" for "workers/w3.log".
std::string StampsPath(const std::string& log_path);
/// Appends a stamp to the stamps file at path; a stamp that cannot be
/// written is lost (the log itself is what matters).
void AppendStamp(const std::string& path, const LogStamp& stamp);
/// The stamp of one line of a stamps file; false when it is not one, or
/// when it goes back from last (a stamp of the same file before it).
[[nodiscard]] bool ParseStamp(const char* line, const LogStamp* last, LogStamp* stamp);
/// The stamps at path, in the order written (offsets and times never
/// decrease); none when there is no such file. Malformed lines are skipped.
std::vector<LogStamp> ReadStamps(const std::string& path);
/// When the log's line ending before offset end was there: the first
/// stamp covering it; otherwise (not stamped yet) fallback.
WallClock::time_point StampOf(const std::vector<LogStamp>& stamps, long long end, WallClock::time_point fallback);

/// The time of RFC 3339 text in UTC ("2026-11-26T12:34:56.123456789Z",
/// fewer digits of a second or none, as Kubernetes gives it); false when
/// it is not that.
[[nodiscard]] bool ParseRfc3339(std::string_view text, WallClock::time_point* at);
/// A line as an engine gives it with its time (Docker's logs with
/// timestamps=1, Kubernetes' with timestamps=true): "TIME text". True with
/// TIME in *at and "TIME " taken off *line; false, *line untouched, when it
/// does not begin with one.
[[nodiscard]] bool TakeTime(std::string_view* line, WallClock::time_point* at);
/// RFC 3339 in UTC with nanoseconds, as docker logs -t shows it:
/// "2026-11-26T12:34:56.123456789Z".
std::string Rfc3339(WallClock::time_point at);

}  // namespace fiber::runs
