// The engine's log and attach streams when the container has no TTY: frames
// of an 8-byte header (the stream: 1 stdout, 2 stderr; three zero bytes; the
// payload's size, big-endian) and the payload. A frame may arrive split over
// any number of chunks, so the reader keeps what it has not finished. Used by
// engine::Client::Logs and FollowLogs. Not thread-safe.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace fiber::engine {

class LogStream {
 public:
  /// on_output gets each frame's payload and its stream (1 or 2).
  explicit LogStream(std::function<void(int stream, std::string_view text)> on_output)
      : on_output_(std::move(on_output)) {}
  /// Hands over the frames that chunk completes.
  void Feed(std::string_view chunk);
  /// True when the bytes fed so far end on a frame boundary.
  bool complete() const { return pending_.empty(); }

 private:
  std::function<void(int, std::string_view)> on_output_;
  std::string pending_;
};

}  // namespace fiber::engine
