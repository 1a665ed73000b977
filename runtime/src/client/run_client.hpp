// This process's way to its run's master for the run's shared objects:
// queues, pipes and calls to a manager's objects (those go to the manager
// itself where it can be reached: client/manager_links.hpp). In the master
// it hands each request to the dispatcher's I/O thread. In a worker it is a second
// connection to the master, with the run's keys, owned by a thread of its
// own (client/remote_client.hpp): the serve loop's socket belongs to the
// serve loop's thread, and user code inside a task may block on a get while
// that thread waits for it. Thread-safe.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "fiber/detail/batch.hpp"
#include "fiber/detail/got_items.hpp"
#include "wire/request.hpp"

namespace fiber::client {

class ManagerLinks;

class RunClient {
 public:
  /// How this process makes its client, set by fiber::init: a worker's
  /// reaches the master over the socket (client/remote_client.hpp), the
  /// master's is in-process (client/local_client.hpp).
  using Maker = std::unique_ptr<RunClient> (*)();
  static void SetMaker(Maker make);
  /// This process's client, made on first use; in the master that makes the
  /// run. Throws ConfigError before fiber::init, fiber::Error when the
  /// master cannot be reached at all.
  static RunClient& Get();
  virtual ~RunClient();

  virtual const std::string& run_id() const = 0;
  /// Sends request (its id is set here); on_reply runs once, on the
  /// client's I/O thread (or the master's): it must not block.
  virtual void Send(wire::Request request, std::function<void(wire::Reply)> on_reply) = 0;
  /// Send for a manager call: to the manager's own endpoint in one hop
  /// when endpoint is not "" and this process reaches it, else through
  /// the master.
  void SendToManager(const std::string& endpoint, wire::Request request,
                     std::function<void(wire::Reply)> on_reply);
  /// Sends the manager calls held to go together: before a caller waits
  /// for one.
  void FlushManagerCalls();
  /// The manager on channel has ended (shut down by this process): later
  /// calls to it go through the master.
  void ManagerEnded(std::uint64_t channel);
  /// Send of the request make makes on the client's thread (or the
  /// master's) as it goes, so that what the caller adds to it until then
  /// goes too (pipelined puts); false, on_reply never run, when the
  /// client takes no more.
  [[nodiscard]] virtual bool SendMade(std::function<wire::Request()> make,
                                      std::function<void(wire::Reply)> on_reply) = 0;
  /// Send, and wait for the reply.
  wire::Reply Call(wire::Request request);
  /// Runs first thing in each Send (not SendMade), so that requests held
  /// back to go together (pipelined puts, api/put_pipeline.hpp) go before
  /// it; set once.
  static void SetBeforeSend(void (*hook)());
  /// A queue get or get_many, waited for: its items, read where they
  /// are (in the master, where the queue holds them); none, and *error
  /// the reply, when the answer is not kOk.
  virtual detail::GotItems Take(wire::Request request, wire::Reply* error);

 protected:
  /// Each client makes its links with the run's keys once; their calls
  /// that fall back go through Send. Ended first thing in its destructor,
  /// while Send still works.
  void MakeLinks(const std::string& client_secret, std::chrono::milliseconds heartbeat_timeout);
  void EndLinks();
  /// What each Send runs first (SetBeforeSend).
  static void BeforeSend();

 private:
  std::unique_ptr<ManagerLinks> links_;
};

/// What a manager call's reply means to its caller (the reverse of the
/// master's AnswerWith in master/request_service.cpp).
detail::Outcome OutcomeOf(const wire::Reply& reply);

}  // namespace fiber::client
