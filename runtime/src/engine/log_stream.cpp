#include "engine/log_stream.hpp"

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
  pending_.append(chunk);
  std::size_t at = 0;
  while (pending_.size() - at >= kHeader) {
    const std::string_view header(pending_.data() + at, kHeader);
    const std::size_t size = PayloadSize(header);
    if (pending_.size() - at - kHeader < size) break;
    on_output_(static_cast<std::uint8_t>(header[0]),
               std::string_view(pending_.data() + at + kHeader, size));
    at += kHeader + size;
  }
  pending_.erase(0, at);
}

}  // namespace fiber::engine
