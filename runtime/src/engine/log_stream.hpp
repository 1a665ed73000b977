// The engine's log and attach streams when the container has no TTY: frames
// of an 8-byte header (the stream: 1 stdout, 2 stderr; three zero bytes; the
// payload's size, big-endian) and the payload. A frame may arrive split over
// any number of chunks; its payload is handed on as it arrives, so a frame
// that claims gigabytes holds no memory. Used by engine::Logs,
// FollowLogs and Attach. Not thread-safe.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace fiber::engine {

class LogStream {
 public:
  /// on_output gets each frame's payload, in one or more pieces, and its
  /// stream (1 or 2).
  explicit LogStream(std::function<void(int stream, std::string_view text)> on_output)
      : on_output_(std::move(on_output)) {}
  /// Hands over the frames that chunk completes.
  void Feed(std::string_view chunk);
  /// True when the bytes fed so far end on a frame boundary.
  bool complete() const { return header_.empty() && left_ == 0; }

 private:
  std::function<void(int, std::string_view)> on_output_;
  std::string header_;     // an unfinished frame header
  std::size_t left_ = 0;   // of the current frame's payload
  int stream_ = 1;
};

}  // namespace fiber::engine
