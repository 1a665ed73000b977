#include "http/line_stream.hpp"

namespace fiber::http {

bool LineStream::Feed(std::string_view chunk, const std::function<bool(std::string_view)>& on_line) {
  pending_.append(chunk);
  std::size_t start = 0;
  bool go_on = true;
  for (std::size_t newline; go_on && (newline = pending_.find('\n', start)) != std::string::npos;
       start = newline + 1)
    go_on = on_line(std::string_view(pending_.data() + start, newline - start));
  pending_.erase(0, start);
  if (!go_on) return false;
  overflowed_ = pending_.size() > kMaxAnswerBytes;
  if (overflowed_) pending_.clear();
  return !overflowed_;
}

}  // namespace fiber::http
