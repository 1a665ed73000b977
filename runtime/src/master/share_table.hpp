// The run's shared values (fiber::share), held by the master: each one's
// bytes in a sealed memfd (os/sealed_memfd.hpp) that processes of this
// machine read in place and others fetch, the peers holding a handle to it
// ("" for the master itself, once however many handles a process has), and
// the tokens of handles on their way between processes. A value is freed
// once nobody holds it and no token is unclaimed; a peer gone is holding
// nothing (ReleaseHeldBy). Each value is charged to the peer that made it
// (PeerBudget: its bytes, an object, and the descriptor its memfd keeps
// open in the master) until freed. Not thread-safe: owned by the dispatcher's I/O
// thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "master/peer_budget.hpp"
#include "master/queue_table.hpp"
#include "os/sealed_memfd.hpp"
#include "wire/request.hpp"

namespace fiber::master {

class ShareTable {
 public:
  using Answer = QueueTable::Answer;

  explicit ShareTable(std::shared_ptr<PeerBudget> budget);

  /// True for the ops this table serves.
  static bool Serves(wire::Op op);
  /// A request from peer ("" for the master itself), answered now. The
  /// value's bytes are moved out of request.
  void Handle(const std::string& peer, wire::Request& request, const Answer& answer);
  /// The peers holding a value now (never the master, "").
  std::vector<std::string> Holders() const;
  /// peer is gone: it holds nothing now.
  void ReleaseHeldBy(const std::string& peer);

  /// Values held, and their bytes (for tests and status).
  std::size_t values() const { return shares_.size(); }
  std::size_t bytes() const;

 private:
  struct Share {
    os::SealedMemfd memory;
    std::map<std::string, std::uint32_t> holders;  // peer -> its holds
    std::set<std::uint64_t> tokens;                // handles on their way
    PeerBudget::Hold hold;
  };
  using Shares = std::map<std::uint64_t, Share>;

  void Create(const std::string& peer, wire::Request& request, const Answer& answer);
  /// Frees it when nobody holds it and no handle is on its way.
  void FreeIfUnheld(Shares::iterator it);

  std::shared_ptr<PeerBudget> budget_;
  std::uint64_t key_;  // in the memfds' names: this table's, unguessed
  Shares shares_;
  std::uint64_t next_id_ = 1;
  std::uint64_t next_token_ = 1;
};

}  // namespace fiber::master
