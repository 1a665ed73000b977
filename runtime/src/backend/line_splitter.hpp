// Cuts a stream of worker output into lines, in time linear in its size and
// in bounded memory: a line is handed on once its newline has come, and a
// line longer than kMaxLine (one that never ends, a progress bar drawn with
// \r) in pieces of kMaxLine bytes, so no writer can make a reader hold more.
// Used wherever worker output is relayed line by line: fiber run and fiber
// logs following the workers' logs (cli/log_follower.hpp), the local
// backend's fork server heading its workers' lines, and WorkerOutput on
// stderr. Not thread-safe.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace fiber::backend {

class LineSplitter {
 public:
  /// The longest piece handed on; a longer line comes in several.
  static constexpr std::size_t kMaxLine = 64 * 1024;
  /// Gets each line (or piece of one) without its newline.
  using Sink = std::function<void(std::string_view line)>;

  explicit LineSplitter(Sink sink) : sink_(std::move(sink)) {}
  /// Hands on every line that text completes.
  void Feed(std::string_view text);
  /// Hands on what is left of an unfinished line, if anything.
  void Finish();

 private:
  Sink sink_;
  std::string partial_;  // never more than kMaxLine bytes
};

}  // namespace fiber::backend
