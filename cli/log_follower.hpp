// Follows a run's log files (the workers' directory, one file per worker,
// or the master's log) and hands each complete new line on with its
// worker's id and when it was written, the lines of all files merged in
// time order: so fiber run can show "[w3] ..." on stderr, and fiber logs
// show a run's logs together (--all), with their times (--timestamps), and
// follow them (-f). The times come from the stamps beside each log
// (runs/log_stamps.hpp), which the follower of fiber run writes as it sees
// the logs grow. It reads each file in blocks and holds at most a block and
// an unfinished line of each (backend/line_splitter.hpp): time linear in
// the output, memory bounded. Not thread-safe.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backend/line_splitter.hpp"
#include "os/descriptor.hpp"
#include "runs/log_stamps.hpp"

namespace fiber::cli {

class LogFollower {
 public:
  using Sink = std::function<void(const std::string& worker_id, const std::string& line, runs::WallClock::time_point at)>;
  /// kRead: the times of lines are read from the stamps beside the logs
  /// (fiber logs); kWrite: they are now, and written there (fiber run).
  enum class Stamps { kRead, kWrite };
  /// Where logs are: the *.log files of dir (only worker_id's, when not
  /// empty), named by their file's name without .log.
  struct Source {
    std::string dir, only;
  };
  /// Follows the logs of each source, merged.
  LogFollower(std::vector<Source> sources, Sink sink, Stamps stamps = Stamps::kRead)
      : sources_(std::move(sources)), sink_(std::move(sink)), stamps_(stamps) {}
  LogFollower(std::string dir, Sink sink, std::string worker_id = {}, Stamps stamps = Stamps::kRead)
      : LogFollower({{std::move(dir), std::move(worker_id)}}, std::move(sink), stamps) {}
  /// Hands on every complete line written since the last call, in time order.
  void Poll();
  /// Poll, then hands on what is left of unfinished lines.
  void Flush();

 private:
  struct Line {
    std::string text;
    runs::WallClock::time_point at;
  };
  struct File {
    std::string log, stamps_path;
    os::Descriptor fd;  // open during a Poll
    long long offset = 0;    // read so far
    long long line_end = 0;  // where the last line handed to lines ended
    std::unique_ptr<backend::LineSplitter> lines;
    std::deque<Line> ready;  // lines read, not yet handed on
    std::deque<runs::LogStamp> stamps;  // kRead: those not yet passed
    long long stamps_offset = 0;        // kRead: of the stamps file, read so far
    runs::WallClock::time_point fallback;  // kRead: for lines not stamped yet
    runs::WallClock::time_point now;       // kWrite: of the block read last
  };
  /// Reads blocks of f until a line is ready or its end.
  void Refill(File& f);
  void ReadNewStamps(File& f);
  /// Hands on the ready lines of all files, the earliest first, refilling
  /// each as it empties.
  void Drain(bool refill);

  /// Opens the files of source, new ones first taken in.
  void Open(const Source& source);

  std::vector<Source> sources_;
  Sink sink_;
  Stamps stamps_;
  std::map<std::string, File> files_;  // by worker id
};

}  // namespace fiber::cli
