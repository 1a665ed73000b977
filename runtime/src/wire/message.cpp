#include "wire/message.hpp"

#include <cstring>

namespace fiber::wire {

const char* TypeName(Type type) {
  switch (type) {
    case Type::kHello: return "HELLO";
    case Type::kWelcome: return "WELCOME";
    case Type::kRefuse: return "REFUSE";
    case Type::kReady: return "READY";
    case Type::kTask: return "TASK";
    case Type::kResult: return "RESULT";
    case Type::kHeartbeat: return "HEARTBEAT";
    case Type::kStop: return "STOP";
    case Type::kInitFailed: return "INIT_FAILED";
    case Type::kRequest: return "REQUEST";
    case Type::kReply: return "REPLY";
    case Type::kRevoke: return "REVOKE";
  }
  return "UNKNOWN";
}

bool Malformed(Type type, std::string* err) {
  *err = std::string("a malformed ") + TypeName(type);
  return false;
}

bool ParseHeader(const zmq::message_t& frame, Header* header, std::string* err) {
  const auto* bytes = static_cast<const std::uint8_t*>(frame.data());
  if (frame.size() < kHeaderSize || bytes[0] != kMagic) {
    *err = "not a fiber message (" + std::to_string(frame.size()) +
           " bytes without the fiber header)";
    return false;
  }
  const std::uint8_t type = bytes[2];
  if (type < static_cast<std::uint8_t>(Type::kHello) || type > kLastType) {
    *err = "unknown message type " + std::to_string(type);
    return false;
  }
  header->version = bytes[1];
  header->type = static_cast<Type>(type);
  std::memcpy(&header->channel, bytes + 3, sizeof header->channel);
  return true;
}

bool ExpectType(const zmq::message_t& message, Type type, std::string* err) {
  Header header;
  if (!ParseHeader(message, &header, err)) return false;
  if (header.type != type) {
    *err = std::string("a ") + TypeName(header.type) + " where " + TypeName(type) +
           " was expected";
    return false;
  }
  return true;
}

// Integers travel little-endian, the byte order of every platform fiber
// builds on.
Writer::Writer(Type type, Channel channel, std::uint8_t version) {
  buf_.reserve(64);
  buf_.push_back(static_cast<char>(kMagic));
  buf_.push_back(static_cast<char>(version));
  buf_.push_back(static_cast<char>(type));
  U32(channel);
}

Writer& Writer::U8(std::uint8_t value) {
  buf_.push_back(static_cast<char>(value));
  return *this;
}

Writer& Writer::U32(std::uint32_t value) {
  buf_.append(reinterpret_cast<const char*>(&value), sizeof value);
  return *this;
}

Writer& Writer::U64(std::uint64_t value) {
  buf_.append(reinterpret_cast<const char*>(&value), sizeof value);
  return *this;
}

Writer& Writer::Bytes(std::string_view bytes) {
  U32(static_cast<std::uint32_t>(bytes.size()));
  buf_.append(bytes);
  return *this;
}

Writer& Writer::Rest(std::string_view bytes) {
  buf_.append(bytes);
  return *this;
}

Reader::Reader(const zmq::message_t& message)
    : pos_(static_cast<const char*>(message.data())),
      end_(static_cast<const char*>(message.data()) + message.size()) {
  pos_ += message.size() < kHeaderSize ? message.size() : kHeaderSize;
}

bool Reader::Take(std::size_t n, const char** out) {
  if (static_cast<std::size_t>(end_ - pos_) < n) return false;
  *out = pos_;
  pos_ += n;
  return true;
}

bool Reader::U8(std::uint8_t* value) {
  const char* p;
  if (!Take(1, &p)) return false;
  *value = static_cast<std::uint8_t>(*p);
  return true;
}

bool Reader::U32(std::uint32_t* value) {
  const char* p;
  if (!Take(sizeof *value, &p)) return false;
  std::memcpy(value, p, sizeof *value);
  return true;
}

bool Reader::U64(std::uint64_t* value) {
  const char* p;
  if (!Take(sizeof *value, &p)) return false;
  std::memcpy(value, p, sizeof *value);
  return true;
}

bool Reader::Bytes(std::string_view* bytes) {
  std::uint32_t n = 0;
  const char* p;
  if (!U32(&n) || !Take(n, &p)) return false;
  *bytes = std::string_view(p, n);
  return true;
}

std::string_view Reader::Rest() {
  std::string_view rest(pos_, static_cast<std::size_t>(end_ - pos_));
  pos_ = end_;
  return rest;
}

}  // namespace fiber::wire
