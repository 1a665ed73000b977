// Every message but TASK and RESULT (task_batch.hpp), built and read in one
// place for both ends. Decode checks the type, the whole body and the
// limits both ends agree on (limits.hpp); views point into the message,
// which must outlive them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>
#include <zmq.hpp>

#include "wire/message.hpp"

namespace fiber::wire {

/// worker -> master, first: who it is (its routing id is its worker id).
struct Hello {
  std::uint64_t pid = 0;
};

/// master -> worker: the pool's channel, its prefetch, its initializer.
struct Welcome {
  Channel channel = kRunChannel;
  std::uint32_t prefetch = 1;       // 1..kMaxCredit
  std::string_view init_function;  // empty: none
  std::string_view init_args;
  /// Send each result as its task ends, not batched with the next ones, so
  /// the master knows which task runs (a pool with a task timeout).
  bool results_at_once = false;
};

/// master -> worker: why it may not join. The reason is the rest of the frame.
struct Refuse {
  std::string_view reason;
};

/// worker -> master: how many tasks it may hold (1..kMaxCredit).
struct Ready {
  std::uint32_t credit = 1;
};

/// master -> worker: tasks it holds that another worker now runs; it skips
/// those it has not started (answering each with no outcome).
struct Revoke {
  std::vector<std::uint64_t> ids;
};

/// An exception a user function threw in a worker: its type and message.
struct Raised {
  std::string_view type;
  std::string_view message;
};

/// worker -> master: the pool initializer threw.
struct InitFailed {
  Raised error;
};

zmq::message_t Encode(const Hello& m);
zmq::message_t Encode(const Welcome& m);
/// Sent with the version the refused peer spoke.
zmq::message_t Encode(const Refuse& m, std::uint8_t version);
zmq::message_t Encode(const Ready& m, Channel channel);
zmq::message_t Encode(const InitFailed& m, Channel channel);
zmq::message_t Encode(const Revoke& m, Channel channel);
/// A message with no body: HEARTBEAT or STOP.
zmq::message_t EncodeControl(Type type, Channel channel);

[[nodiscard]] bool Decode(const zmq::message_t& message, Hello* m, std::string* err);
[[nodiscard]] bool Decode(const zmq::message_t& message, Welcome* m, std::string* err);
[[nodiscard]] bool Decode(const zmq::message_t& message, Refuse* m, std::string* err);
[[nodiscard]] bool Decode(const zmq::message_t& message, Ready* m, std::string* err);
[[nodiscard]] bool Decode(const zmq::message_t& message, InitFailed* m, std::string* err);
[[nodiscard]] bool Decode(const zmq::message_t& message, Revoke* m, std::string* err);

}  // namespace fiber::wire
