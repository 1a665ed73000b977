// The framing of every message between a master and its workers: a 7-byte
// header (magic, protocol version, type, channel), then the body's fields in
// order. codec.hpp and task_batch.hpp build and read the bodies; frames.hpp
// moves a message over a socket. PROTOCOL.md beside this file is the
// reference.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <zmq.hpp>

namespace fiber::wire {

/// Bumped whenever a message's layout changes.
constexpr std::uint8_t kProtocolVersion = 6;
constexpr std::uint8_t kMagic = 'F';
/// Magic, version and type (the first three bytes, the same in every
/// version), then the channel.
constexpr std::size_t kHeaderSize = 7;

enum class Type : std::uint8_t {
  kHello = 1,
  kWelcome = 2,
  kRefuse = 3,
  kReady = 4,
  kTask = 5,
  kResult = 6,
  kHeartbeat = 7,
  kStop = 8,
  kInitFailed = 9,
  kRequest = 10,
  kReply = 11,
  kRevoke = 12,
};
constexpr std::uint8_t kLastType = static_cast<std::uint8_t>(Type::kRevoke);

const char* TypeName(Type type);
/// A decoder's failure: *err says "a malformed TYPE"; false.
bool Malformed(Type type, std::string* err);

/// A channel names what a message is for within the run: 0 is the run
/// itself (HELLO, REFUSE), any other one pool.
using Channel = std::uint32_t;
constexpr Channel kRunChannel = 0;

struct Header {
  std::uint8_t version = 0;
  Type type = Type::kHeartbeat;
  Channel channel = kRunChannel;
};

/// False (with *err naming the fault) for anything that does not start with
/// a header of some version; the caller decides what a foreign version means.
[[nodiscard]] bool ParseHeader(const zmq::message_t& frame, Header* header, std::string* err);

/// ParseHeader, and the type is type: what every decoder checks first.
[[nodiscard]] bool ExpectType(const zmq::message_t& message, Type type, std::string* err);

/// Builds one message: the header, then fields appended in order. Integers
/// are little-endian; Bytes is a u32 length and the bytes.
class Writer {
 public:
  explicit Writer(Type type, Channel channel = kRunChannel,
                  std::uint8_t version = kProtocolVersion);
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
  [[nodiscard]] bool U8(std::uint8_t* value);
  [[nodiscard]] bool U32(std::uint32_t* value);
  [[nodiscard]] bool U64(std::uint64_t* value);
  [[nodiscard]] bool Bytes(std::string_view* bytes);
  /// Everything not read yet.
  std::string_view Rest();
  bool AtEnd() const { return pos_ == end_; }
  /// Bytes not read yet: what a count read may be checked against.
  std::size_t left() const { return static_cast<std::size_t>(end_ - pos_); }

 private:
  bool Take(std::size_t n, const char** out);
  const char* pos_;
  const char* end_;
};

}  // namespace fiber::wire
