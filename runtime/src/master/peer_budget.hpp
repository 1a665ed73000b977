// What the master holds for each admitted peer (requests waiting for their
// answer, bytes of queue items, manager-call arguments, shared values and
// the results of its pool tasks not yet taken by the program, each also
// charged a fixed overhead so that empty ones count, queues,
// locks, events, semaphores and shared values it made, the descriptors
// its shared values keep open and the mappings its item files take),
// kept within wire::PeerLimits so that no worker, buggy or hostile, can
// make the master grow without bound, nor all workers together take the
// descriptors and mappings the run itself needs. A worker and its client
// connection (ID.client) are one peer; the master's own requests (peer "")
// are not bounded. Thread-safe: a Hold may be returned on any thread (the
// master's own get drops the charge of what it took on its own).
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "diagnostics/log.hpp"
#include "os/mutex.hpp"
#include "wire/limits.hpp"

namespace fiber::master {

class PeerBudget : public std::enable_shared_from_this<PeerBudget> {
 public:
  struct Usage {
    std::size_t requests = 0, bytes = 0, objects = 0, descriptors = 0, mappings = 0;
  };

  /// A charge against a peer, returned when the Hold is destroyed: it lives
  /// as long as what it pays for (a waiting answer, a queued item, a queue).
  class Hold {
   public:
    Hold() = default;
    Hold(Hold&& other) noexcept { *this = std::move(other); }
    Hold& operator=(Hold&& other) noexcept;
    ~Hold();
    Hold(const Hold&) = delete;
    Hold& operator=(const Hold&) = delete;

   private:
    friend class PeerBudget;
    std::shared_ptr<PeerBudget> budget_;
    std::string peer_;
    Usage usage_;
  };

  /// Made shared: a Hold keeps its budget alive. The bounds of all peers
  /// together are lowered to a quarter of this process's descriptors and
  /// mappings, each peer's to a quarter of those.
  static std::shared_ptr<PeerBudget> Make(wire::PeerLimits limits);

  /// The peer a connection's routing id stands for: ID for ID.client.
  static std::string PeerOf(const std::string& routing_id);

  /// Charges usage to peer; false, with *err naming the bound it would
  /// pass, when it would hold more than its limits allow. The first refusal
  /// while a peer holds anything is logged, naming the worker.
  [[nodiscard]] bool Take(const std::string& peer, Usage usage, Hold* hold, std::string* err);
  /// Charges usage to peer whatever it holds, adding it to *hold (empty, or
  /// peer's): what the master asked for and cannot refuse without losing
  /// it (a task's result; its pool deals such a peer no more instead).
  void Charge(const std::string& peer, const Usage& usage, Hold* hold);

  /// What peer holds now.
  Usage Of(const std::string& peer) const;
  /// What all peers but the master itself hold together.
  Usage All() const;
  /// The bytes peer may still be charged (SIZE_MAX for the master's own, "").
  std::size_t BytesLeft(const std::string& peer) const;
  /// The bounds in force.
  const wire::PeerLimits& limits() const { return limits_; }
  /// The peers holding a request (a waiting answer) now.
  std::vector<std::string> Waiting() const;

 private:
  explicit PeerBudget(wire::PeerLimits limits) : limits_(limits) {}
  void Return(const std::string& peer, const Usage& usage);

  struct Held {
    Usage usage;
    bool warned = false;  // its refusal is logged; again once it held nothing
  };
  wire::PeerLimits limits_;
  mutable os::Mutex mu_;
  std::map<std::string, Held> held_ FIBER_GUARDED_BY(mu_);  // peers holding something
  Usage all_ FIBER_GUARDED_BY(mu_);                         // what peers but the master's own hold
  log::RateLimit unheld_refusals_ FIBER_GUARDED_BY(mu_);
};

}  // namespace fiber::master
