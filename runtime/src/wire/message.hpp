// The messages between a master and its workers, as ZeroMQ multipart frames.
// PROTOCOL.md beside this file is the reference; this is the code for it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <zmq.hpp>
#include <zmq_addon.hpp>

namespace fiber::wire {

/// Bumped whenever a message's layout changes.
constexpr std::uint8_t kProtocolVersion = 1;
constexpr std::uint8_t kMagic = 'F';

enum class Type : std::uint8_t {
  kHello = 1,       // worker -> master: [pid u64]
  kWelcome = 2,     // master -> worker: [interval ms u32][timeout ms u32][prefetch u32][init fn][init args]
  kRefuse = 3,      // master -> worker: [reason]; layout fixed across versions
  kReady = 4,       // worker -> master: [credit u32]
  kTask = 5,        // master -> worker: [task id u64][fn][args]...
  kResult = 6,      // worker -> master: [task id u64][outcome]...
  kHeartbeat = 7,   // both ways: no body
  kStop = 8,        // master -> worker: no body
  kInitFailed = 9,  // worker -> master: [message]
};

const char* TypeName(Type type);

struct Header {
  std::uint8_t version = 0;
  Type type = Type::kHeartbeat;
};

/// Frame 0 of every message: magic, protocol version, type.
zmq::message_t MakeHeader(Type type, std::uint8_t version = kProtocolVersion);
/// False (with *err naming the fault) for anything that is not a header of
/// some version; the caller decides what a foreign version means.
bool ParseHeader(const zmq::message_t& frame, Header* header, std::string* err);

zmq::message_t U64Frame(std::uint64_t value);
zmq::message_t U32Frame(std::uint32_t value);
bool ReadU64(const zmq::message_t& frame, std::uint64_t* value);
bool ReadU32(const zmq::message_t& frame, std::uint32_t* value);

inline std::string ToString(const zmq::message_t& frame) {
  return std::string(static_cast<const char*>(frame.data()), frame.size());
}

}  // namespace fiber::wire
