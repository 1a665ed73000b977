// What the master does with a REQUEST from any process of the run: a queue
// request goes to the run's QueueTable, a lock's, semaphore's or event's to
// its SyncTable (which releases what a peer gone held), a shared value's to
// its ShareTable (likewise); a call to a manager's object
// becomes a task of that manager's pool, answered when its outcome is in
// (for the master itself, or a worker that cannot reach the manager).
// Only a worker that has said HELLO (or its client connection) may ask,
// and only within its PeerBudget. Driven by the dispatcher's I/O thread
// only, like the pools, but for TakeNow.
#pragma once

#include <functional>
#include <memory>

#include "diagnostics/log.hpp"
#include "master/peer_budget.hpp"
#include "master/pool_service.hpp"
#include "master/queue_table.hpp"
#include "master/share_table.hpp"
#include "master/sync_table.hpp"
#include "wire/item_files.hpp"
#include "wire/request.hpp"

namespace fiber::master {

class RequestService {
 public:
  using FindPool = std::function<PoolService*(wire::Channel)>;
  /// True when a worker with this id has said HELLO and is still there.
  using Connected = std::function<bool(const std::string& worker_id)>;
  RequestService(FindPool find_pool, Connected connected, wire::PeerLimits limits)
      : find_pool_(std::move(find_pool)), connected_(std::move(connected)),
        budget_(PeerBudget::Make(limits)) {}

  /// A request from the connection with this routing id ("" for the master
  /// itself), answered now or later.
  /// deliver: a get of the master itself (QueueTable::Handle).
  void Handle(const std::string& routing_id, wire::Request request, QueueTable::Answer answer,
              Clock::time_point now, QueueTable::Deliver deliver = nullptr);
  /// Serves QUEUE_PUT_FILE from files; until then such puts are refused.
  /// Before the I/O thread starts.
  void UseItemFiles(std::shared_ptr<wire::ItemFiles> files) {
    queues_.UseItemFiles(std::move(files));
  }
  /// The master's own get, answered at once on the caller's thread when
  /// it can be (QueueTable::TakeNow). Thread-safe.
  bool TakeNow(const wire::Request& request, QueueTable::Taken* taken) {
    return queues_.TakeNow(request, taken);
  }
  /// Answers waits whose time is up; forgets those of workers gone and
  /// releases what they held.
  void Tick(Clock::time_point now);

  const QueueTable& queues() const { return queues_; }
  const SyncTable& sync() const { return sync_; }
  const ShareTable& shares() const { return shares_; }
  /// What the master holds for a worker (and its client connection).
  PeerBudget::Usage HeldFor(const std::string& worker_id) const { return budget_->Of(worker_id); }
  /// The budget every peer is charged against, the pools' results too.
  const std::shared_ptr<PeerBudget>& budget() const { return budget_; }
  /// Calls on a manager's objects the master forwarded for other processes:
  /// 0 while every worker calls its managers in one hop.
  std::uint64_t manager_calls_forwarded() const { return manager_calls_forwarded_; }

 private:
  void CallManager(const wire::Request& request, QueueTable::Answer answer,
                   Clock::time_point now);

  FindPool find_pool_;
  Connected connected_;
  std::shared_ptr<PeerBudget> budget_;
  QueueTable queues_{budget_};
  SyncTable sync_{budget_};
  ShareTable shares_{budget_};
  log::RateLimit unknown_askers_;
  std::uint64_t manager_calls_forwarded_ = 0;
};

}  // namespace fiber::master
