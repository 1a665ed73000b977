// Cuts a streamed answer of JSON lines (a Kubernetes watch, the engine's
// events and build messages) into whole lines as its chunks arrive, holding
// at most kMaxAnswerBytes of an unfinished line: a service that never ends
// a line cannot make fiber hold more. Not thread-safe.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "http/client.hpp"

namespace fiber::http {

class LineStream {
 public:
  /// Hands on each line that chunk completes, without its newline, while
  /// on_line returns true. False when on_line stopped it, or when the
  /// unfinished line passed kMaxAnswerBytes (then overflowed()).
  [[nodiscard]] bool Feed(std::string_view chunk, const std::function<bool(std::string_view)>& on_line);
  bool overflowed() const { return overflowed_; }
  /// The unfinished line so far.
  const std::string& rest() const { return pending_; }

 private:
  std::string pending_;
  bool overflowed_ = false;
};

}  // namespace fiber::http
