// A manager's own endpoint, for calls in one hop (PROTOCOL.md, "Calls in
// one hop"): a ROUTER bound on the manager's address toward its master (any
// port) with the keys of the run's master, so only the run's peers get
// through, and with the master's bounds on connections that have not
// proven the key (wire/admission.hpp). A caller in another worker sends its calls on objects here
// rather than through the master. The serve loop polls it beside its
// connection to the master and runs each call on its own thread between
// tasks, so a manager still runs one call at a time. Owned by the serve
// loop's thread; not thread-safe.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>
#include <zmq.hpp>

#include "wire/admission.hpp"
#include "wire/message.hpp"
#include "wire/request.hpp"
#include "wire/task_batch.hpp"
#include "worker/bootstrap.hpp"

namespace fiber::worker {

class DirectCallServer {
 public:
  /// Binds for the manager on channel, which answers calls of function
  /// (the built-in that calls a method) only; nullptr with *err when it
  /// cannot (its callers then go through the master).
  static std::unique_ptr<DirectCallServer> Open(zmq::context_t& context, const Bootstrap& b,
                                                wire::Channel channel, std::string function,
                                                std::string* err);

  /// Where callers reach it, tcp://host:port: the bound address, its host
  /// replaced by b.manager_host when that is set.
  const std::string& endpoint() const { return endpoint_; }
  /// Its socket's ZMQ_FD, for poll(2): signals once a call comes after
  /// Next found none.
  int fd() const { return fd_; }

  /// One call: its id, and the function and arguments it calls.
  struct Call {
    std::uint64_t id = 0;
    std::string function, args;
  };
  /// The calls of one message, a batch or one call: run in order, then
  /// answered together.
  struct Calls {
    std::string peer;
    std::optional<std::uint64_t> batch;  // the kManagerCalls request's id
    std::vector<Call> calls;
  };

  /// The next message's calls: false when none waits. Answers a hello, and
  /// refuses a request it does not serve, itself.
  [[nodiscard]] bool Next(Calls* in);
  /// Sends the outcomes of in's calls (one each, in order) in one message.
  void Answer(const Calls& in, const std::vector<wire::OutcomeView>& outcomes);

 private:
  DirectCallServer(zmq::context_t& context, wire::Channel channel, std::string function);
  void Reply(const std::string& peer, std::uint64_t id, wire::Status status, std::string_view body);
  // The call view makes, when this manager serves it.
  bool Serves(const wire::CallView& view, Call* call) const;

  zmq::socket_t router_;
  std::unique_ptr<wire::Admission> admission_;  // watches router_: declared after it
  wire::Channel channel_;
  std::string function_;
  std::string endpoint_;
  int fd_ = -1;
};

}  // namespace fiber::worker
