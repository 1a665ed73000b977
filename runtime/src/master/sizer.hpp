// How many workers one pool wants and may start: a fixed number, or for an
// elastic pool as many as its waiting tasks need within its bounds, fewer
// once workers idle; how many start at once; when failed starts end it.
// Pure: counts and times in, a decision out (no sockets, no clock of its
// own). Not thread-safe; the pool's service drives it.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>


namespace fiber::master {

class Sizer {
 public:
  /// An elastic pool's bounds, and how long a worker idles before it retires.
  struct Elastic {
    int min = 0, max = 1;
    std::chrono::milliseconds idle_timeout{30000};
  };
  explicit Sizer(int processes) : target_(processes) {}
  explicit Sizer(Elastic elastic) : elastic_(elastic), target_(elastic.min) {}

  /// How many workers the pool wants now.
  int target() const { return target_; }
  /// From now on a pool of exactly processes workers, elastic or not before.
  void Resize(int processes) {
    elastic_.reset();
    target_ = processes;
  }

  /// An elastic pool with pending tasks waiting and live workers (starting
  /// of them not yet connected, each of which will take one) grows to
  /// cover the rest, up to its maximum. True when tasks wait that no
  /// starting worker will take (so workers should start); always false for
  /// a fixed pool, which stays as it is.
  [[nodiscard]] bool Grow(std::size_t pending, int live, int starting);
  /// How many workers to start now: up to the target, with at most
  /// max_starting of them starting at once.
  int ToStart(int live, int starting, int max_starting) const;
  /// Workers of an elastic pool idle since before this may retire; none for
  /// a fixed pool.
  std::optional<std::chrono::steady_clock::time_point> IdleCutoff(
      std::chrono::steady_clock::time_point now) const;
  /// Of idle workers past the cutoff, how many retire, keeping the minimum;
  /// the target follows the workers that stay. Call only for an elastic
  /// pool with nothing pending.
  int RetireIdle(int live, int idle);

  /// A worker ended before connecting, or one said READY (the run of failed
  /// starts is broken).
  void StartFailed() { ++start_failures_; }
  void Started() { start_failures_ = 0; }
  int start_failures() const { return start_failures_; }
  /// So many workers in a row failed to start that the next would too.
  bool GivesUp() const;

 private:
  std::optional<Elastic> elastic_;
  int target_;
  int start_failures_ = 0;
};

}  // namespace fiber::master
