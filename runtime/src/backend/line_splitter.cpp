#include "backend/line_splitter.hpp"

namespace fiber::backend {

void LineSplitter::Feed(std::string_view text) {
  while (!text.empty()) {
    // A newline is looked for only as far as the bound: each byte is looked
    // at once, and a line of exactly kMaxLine bytes still comes whole.
    const std::size_t room = kMaxLine - partial_.size();
    const std::size_t nl = text.substr(0, room + 1).find('\n');
    if (nl == std::string_view::npos && text.size() <= room) {
      partial_.append(text);
      return;
    }
    const std::size_t take = nl == std::string_view::npos ? room : nl;
    if (partial_.empty()) {
      sink_(text.substr(0, take));
    } else {
      partial_.append(text.substr(0, take));
      sink_(partial_);
      partial_.clear();
    }
    text.remove_prefix(nl == std::string_view::npos ? take : take + 1);
  }
}

void LineSplitter::Finish() {
  if (partial_.empty()) return;
  sink_(partial_);
  partial_.clear();
}

}  // namespace fiber::backend
