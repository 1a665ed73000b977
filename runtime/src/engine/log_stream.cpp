#include "engine/log_stream.hpp"

#include <algorithm>
#include <cstdint>

namespace fiber::engine {

namespace {
constexpr std::size_t kHeader = 8;

std::size_t PayloadSize(std::string_view header) {
  std::size_t n = 0;
  for (int i = 4; i < 8; ++i) n = n << 8 | static_cast<std::uint8_t>(header[i]);
  return n;
}
}  // namespace

void LogStream::Feed(std::string_view chunk) {
  while (!chunk.empty()) {
    if (left_ == 0) {
      const std::size_t take = std::min(kHeader - header_.size(), chunk.size());
      header_.append(chunk.substr(0, take));
      chunk.remove_prefix(take);
      if (header_.size() < kHeader) return;
      stream_ = static_cast<std::uint8_t>(header_[0]);
      left_ = PayloadSize(header_);
      header_.clear();
      continue;
    }
    const std::size_t take = std::min(left_, chunk.size());
    on_output_(stream_, chunk.substr(0, take));
    left_ -= take;
    chunk.remove_prefix(take);
  }
}

}  // namespace fiber::engine
