// A peer of a master played by the test over a real socket: a worker of the
// run (from its launch), or a stranger with other keys or none. It sends
// what the test tells it and hands back what the master answers.
#pragma once

#include <string>
#include <vector>
#include <zmq.hpp>

#include "backend/backend.hpp"
#include "wire/credentials.hpp"
#include "wire/message.hpp"
#include "wire/request.hpp"
#include "wire/task_batch.hpp"

namespace fiber::testing {

class ScriptedPeer {
 public:
  /// Connects as the worker a backend was asked to start, or with suffix
  /// ".client" as that worker's client connection (client/remote_client.hpp).
  ScriptedPeer(zmq::context_t& ctx, const backend::Launch& launch, const std::string& suffix = "");
  /// Connects to endpoint with routing id id: with the run's keys, with
  /// another run's (own_keys), or without CURVE (keys null).
  ScriptedPeer(zmq::context_t& ctx, const std::string& endpoint, const std::string& id,
               const wire::Credentials* keys, bool own_keys = false);

  void Send(zmq::message_t message);
  /// The next message, or an empty one after timeout_ms.
  zmq::message_t Receive(int timeout_ms);
  /// HELLO, then WELCOME, then READY with credit; returns the pool's channel.
  wire::Channel Join(std::uint32_t credit = 1);
  /// The tasks of the next TASK (heartbeats skipped); *holder keeps the
  /// message the views point into.
  std::vector<wire::TaskView> NextTasks(zmq::message_t* holder);
  /// RESULT for one task whose calls each return value.
  void Answer(wire::Channel channel, std::uint64_t task, const std::vector<std::string>& values);

  /// Sends REQUEST and returns the REPLY to it (other messages skipped);
  /// status kLost with body "no reply" when none came within 10 s.
  wire::Reply Ask(wire::Request request);

  zmq::socket_t socket;

 private:
  std::uint64_t next_request_ = 1;
};

/// The id (u64) an OK reply holds: a new queue's, lock's, event's.
std::uint64_t IdIn(const wire::Reply& reply);

/// The reason of a REFUSE, or "" for any other message.
std::string RefusalIn(const zmq::message_t& message);

}  // namespace fiber::testing
