// What the fuzz targets share: how one fails when a property it asserts
// does not hold, and the views of a frame they compare. A wire target takes
// its input as one whole frame, header included, as a peer would send it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <zmq.hpp>

#include "wire/message.hpp"

namespace fiber::fuzz {

/// Aborts, so that libFuzzer keeps the input, unless the property holds.
inline void Expect(bool holds, const char* property) {
  if (holds) return;
  std::fprintf(stderr, "property broken: %s\n", property);
  std::abort();
}

inline std::string_view Bytes(const zmq::message_t& frame) {
  return {static_cast<const char*>(frame.data()), frame.size()};
}

/// A frame's bytes after the header, which is where wire::Reader starts.
inline std::string_view Body(const zmq::message_t& frame) {
  return Bytes(frame).substr(std::min(frame.size(), wire::kHeaderSize));
}

}  // namespace fiber::fuzz
