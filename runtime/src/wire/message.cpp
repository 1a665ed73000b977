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
  }
  return "UNKNOWN";
}

zmq::message_t MakeHeader(Type type, std::uint8_t version) {
  const std::uint8_t bytes[3] = {kMagic, version, static_cast<std::uint8_t>(type)};
  return zmq::message_t(bytes, sizeof bytes);
}

bool ParseHeader(const zmq::message_t& frame, Header* header, std::string* err) {
  const auto* bytes = static_cast<const std::uint8_t*>(frame.data());
  if (frame.size() != 3 || bytes[0] != kMagic) {
    *err = "not a fiber message (bad header frame of " +
           std::to_string(frame.size()) + " bytes)";
    return false;
  }
  const std::uint8_t type = bytes[2];
  if (type < static_cast<std::uint8_t>(Type::kHello) ||
      type > static_cast<std::uint8_t>(Type::kInitFailed)) {
    *err = "unknown message type " + std::to_string(type);
    return false;
  }
  header->version = bytes[1];
  header->type = static_cast<Type>(type);
  return true;
}

// Integers travel little-endian, the byte order of every platform fiber
// builds on; the frame length is checked on read.
zmq::message_t U64Frame(std::uint64_t value) { return zmq::message_t(&value, sizeof value); }
zmq::message_t U32Frame(std::uint32_t value) { return zmq::message_t(&value, sizeof value); }

bool ReadU64(const zmq::message_t& frame, std::uint64_t* value) {
  if (frame.size() != sizeof *value) return false;
  std::memcpy(value, frame.data(), sizeof *value);
  return true;
}

bool ReadU32(const zmq::message_t& frame, std::uint32_t* value) {
  if (frame.size() != sizeof *value) return false;
  std::memcpy(value, frame.data(), sizeof *value);
  return true;
}

}  // namespace fiber::wire
