// A master made by a test inside its own process: a Dispatcher with fresh
// keys on loopback, to which the test adds pools whose workers it plays
// (ScriptedBackend, ScriptedPeer).
#pragma once

#include <memory>

#include "master/dispatcher.hpp"
#include "support/scripted_backend.hpp"
#include "support/scripted_peer.hpp"

namespace fiber::testing {

struct TestMaster {
  /// limits: what each worker may make the master hold; backlog: what each
  /// connection may hold below ZeroMQ; settings: the run's (heartbeats).
  explicit TestMaster(wire::PeerLimits limits = {}, wire::BacklogLimits backlog = {},
                      config::Settings settings = {});
  /// Adds a pool of processes scripted workers; returns its channel.
  wire::Channel AddPool(int processes, std::shared_ptr<ScriptedBackend::State> state,
                        int max_task_retries = 3);
  /// Runs fn on the I/O thread and waits for it.
  void OnIoThread(std::function<void()> fn);
  /// What the master holds for worker (and its client connection).
  master::PeerBudget::Usage HeldFor(const std::string& worker);
  /// The pool on channel runs a task (square of 7) on worker, played by
  /// the test, to its end.
  void RunsATask(wire::Channel channel, ScriptedPeer& worker);

  wire::Credentials keys;
  std::unique_ptr<master::Dispatcher> dispatcher;
};

}  // namespace fiber::testing
