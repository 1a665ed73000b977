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

#include "wire/codec.hpp"
#include "wire/message.hpp"
#include "wire/request.hpp"

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

/// The property of every small message (wire/codec.hpp): a frame either
/// decodes as an M or is refused with a reason, and a decoded one encodes
/// back to the same body. encode(m, header) writes it again.
template <class M, class Encode>
int CodecRoundTrip(const std::uint8_t* data, std::size_t size, Encode encode) {
  const zmq::message_t frame(data, size);
  M m;
  std::string err;
  if (!wire::Decode(frame, &m, &err)) {
    Expect(!err.empty(), "a refused message comes with a reason");
    return 0;
  }
  wire::Header header;
  Expect(wire::ParseHeader(frame, &header, &err), "a decoded message has a header");
  Expect(Body(encode(m, header)) == Body(frame), "a message written again makes the same body");
  return 0;
}

}  // namespace fiber::fuzz
