// A process's calls to managers' own endpoints, in one hop (PROTOCOL.md,
// "Calls in one hop"): one DirectLink per manager, made on first use. Once
// a link is direct, the caller's own thread sends on it, with no hand-off
// to another thread; a thread of the links' own makes the links, takes
// the hellos' answers, receives every answer and watches the connections.
// A call that cannot go in one hop (a manager this process cannot reach,
// or whose connection dropped) goes through the master, in order, by the
// function given. Used by the run client in the master and in workers.
// Thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>
#include <zmq.hpp>

#include "client/direct_link.hpp"
#include "os/inbox.hpp"
#include "os/mutex.hpp"
#include "wire/request.hpp"

namespace fiber::client {

class ManagerLinks {
 public:
  using OnReply = std::function<void(wire::Reply)>;
  /// Sends a request through the master; must not block, and is called
  /// with the links' lock held (which keeps a caller's calls in order).
  using ViaMaster = std::function<void(wire::Request, OnReply)>;

  ManagerLinks(std::string client_secret, std::chrono::milliseconds heartbeat_timeout,
               ViaMaster via_master);
  ~ManagerLinks();

  /// Sends a method call (op kManagerCall, object the manager's channel) to
  /// the manager's endpoint; on_reply runs once, on any thread, and must
  /// not block.
  void Send(const std::string& endpoint, wire::Request request, OnReply on_reply);
  /// Sends the calls held to go together in one message (those made while
  /// others to the same manager were in flight): before a caller waits.
  void Flush();
  /// The manager on channel has ended: its links close (calls in flight
  /// fail), and every later call to it goes through the master.
  void Ended(std::uint64_t channel);

 private:
  using Key = std::pair<std::uint64_t, std::string>;  // the manager's channel, its endpoint
  struct Call {
    wire::Request request;
    OnReply on_reply;
  };
  struct Posted {
    Key key;
    Call call;
  };
  // One manager's link and its calls; all under mu_.
  struct Link {
    std::unique_ptr<DirectLink> link;  // made by the thread
    std::size_t posted = 0;            // calls in the inbox, not yet routed
    std::deque<Call> held;             // while the hello is out, calls are in flight, or the link is full
    std::map<std::uint64_t, OnReply> in_flight;  // wire::kMaxCallsInFlight at most
  };
  using Answers = std::vector<std::pair<OnReply, wire::Reply>>;
  void Run();
  bool Route(Posted p, Answers* answers) FIBER_REQUIRES(mu_);
  bool Serve(std::uint64_t channel, Link& l, DirectLink::Clock::time_point now, bool data, bool events,
             Answers* answers) FIBER_REQUIRES(mu_);
  bool SendHeld(Link& l, Answers* answers);
  bool SendHere(Link& l);
  bool SendBatches(Link& l, bool* sent);
  void Fallback(Link& l, Answers* answers);
  void Fail(const std::string& why);

  std::string client_secret_;
  std::chrono::milliseconds heartbeat_timeout_;
  ViaMaster via_master_;
  zmq::context_t context_{1};
  std::atomic<std::uint64_t> next_id_{1};
  os::Inbox<Posted> inbox_;  // calls for the thread to route
  std::once_flag started_;
  std::thread thread_;

  os::Mutex mu_;
  std::map<Key, Link> links_ FIBER_GUARDED_BY(mu_);
  std::set<std::uint64_t> ended_ FIBER_GUARDED_BY(mu_);  // channels
};

}  // namespace fiber::client
