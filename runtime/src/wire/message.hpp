// The messages between a master and its workers. Each message is one ZeroMQ
// frame: a 3-byte header (magic, protocol version, type), then the body's
// fields in order. One frame per message keeps CURVE to one encryption per
// message. PROTOCOL.md beside this file is the reference.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <zmq.hpp>

namespace fiber::wire {

/// Bumped whenever a message's layout changes.
constexpr std::uint8_t kProtocolVersion = 2;
constexpr std::uint8_t kMagic = 'F';
constexpr std::size_t kHeaderSize = 3;

enum class Type : std::uint8_t {
  kHello = 1,       // worker -> master: pid u64
  kWelcome = 2,     // master -> worker: prefetch u32, init fn, init args
  kRefuse = 3,      // master -> worker: reason (rest of frame); layout fixed across versions
  kReady = 4,       // worker -> master: credit u32
  kTask = 5,        // master -> worker: count u32, then per task: id u64, fn, calls u32, args...
  kResult = 6,      // worker -> master: credit u32, count u32, then per task: id u64, outcomes...
  kHeartbeat = 7,   // both ways: no body
  kStop = 8,        // master -> worker: no body
  kInitFailed = 9,  // worker -> master: "type\nmessage" (rest of frame)
};

const char* TypeName(Type type);

struct Header {
  std::uint8_t version = 0;
  Type type = Type::kHeartbeat;
};

/// False (with *err naming the fault) for anything that does not start with
/// a header of some version; the caller decides what a foreign version means.
bool ParseHeader(const zmq::message_t& frame, Header* header, std::string* err);

/// Builds one message: the header, then fields appended in order. Integers
/// are little-endian; Bytes is a u32 length and the bytes.
class Writer {
 public:
  explicit Writer(Type type, std::uint8_t version = kProtocolVersion);
  Writer& U8(std::uint8_t value);
  Writer& U32(std::uint32_t value);
  Writer& U64(std::uint64_t value);
  Writer& Bytes(std::string_view bytes);
  /// Bytes without a length: only as the last field.
  Writer& Rest(std::string_view bytes);
  std::size_t size() const { return buf_.size(); }
  zmq::message_t Finish() const { return zmq::message_t(buf_.data(), buf_.size()); }

 private:
  std::string buf_;
};

/// Reads the fields of one message after its header. Every read checks the
/// bytes left, so a short or lying message fails a read instead of being
/// misread; views point into the message, which must outlive them.
class Reader {
 public:
  explicit Reader(const zmq::message_t& message);
  bool U8(std::uint8_t* value);
  bool U32(std::uint32_t* value);
  bool U64(std::uint64_t* value);
  bool Bytes(std::string_view* bytes);
  /// Everything not read yet.
  std::string_view Rest();
  bool AtEnd() const { return pos_ == end_; }

 private:
  bool Take(std::size_t n, const char** out);
  const char* pos_;
  const char* end_;
};

/// A message with a header and no body (HEARTBEAT, STOP).
inline zmq::message_t Control(Type type) { return Writer(type).Finish(); }

}  // namespace fiber::wire
