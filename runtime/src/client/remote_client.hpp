// The run's client in a worker (client/run_client.hpp): a second connection
// to the master, a DEALER with the run's client keys and the routing id of
// the worker's id and ".client" (the worker's own id belongs to its serve
// loop's connection). It owns a thread of its own, which alone uses the
// socket: user code inside a task may block on a get while the serve
// loop's thread waits for it. Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <zmq.hpp>

#include "client/run_client.hpp"
#include "os/inbox.hpp"
#include "wire/request.hpp"
#include "worker/bootstrap.hpp"

namespace fiber::client {

class RemoteClient : public RunClient {
 public:
  /// Connects to b's master and starts the thread; throws fiber::Error when
  /// it cannot make its wake descriptor.
  explicit RemoteClient(const worker::Bootstrap& b);
  ~RemoteClient() override;

  const std::string& run_id() const override { return run_id_; }
  void Send(wire::Request request, std::function<void(wire::Reply)> on_reply) override;
  bool SendMade(std::function<wire::Request()> make,
                std::function<void(wire::Reply)> on_reply) override;

 private:
  struct Outgoing {
    wire::Request request;
    std::function<void(wire::Reply)> on_reply;
    std::function<wire::Request()> make;  // the request, made as it goes
  };

  void Run();
  void ToMaster(Outgoing o);
  void ReceiveAll();
  // The thread has ended: every call waiting, and every later one, fails
  // with why.
  void Fail(const std::string& why);
  void Answer(wire::Reply reply);

  std::string run_id_;
  zmq::context_t context_;
  zmq::socket_t dealer_;  // the thread's only
  std::thread thread_;

  // Requests from the program's threads; closed with why once the thread
  // sends no more (it failed, or the client is going).
  os::Inbox<Outgoing> outbox_;
  std::atomic<std::uint64_t> next_id_{1};

  std::map<std::uint64_t, std::function<void(wire::Reply)>> pending_;  // the thread's only
};

}  // namespace fiber::client
