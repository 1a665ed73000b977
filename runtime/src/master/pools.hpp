// The run's pools, by channel and by worker id: the dispatcher finds the
// pool a message is for by its channel, and the pool a worker belongs to by
// its id, from an index kept as ids are given out (NewWorkerId), not by
// asking every pool. Not thread-safe: the dispatcher's I/O thread's.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>

#include "master/pool_service.hpp"
#include "wire/message.hpp"

namespace fiber::master {

class Pools {
 public:
  using ByChannel = std::map<wire::Channel, std::unique_ptr<PoolService>>;

  /// Adds pool under its channel (not started: its owner starts it).
  void Add(std::unique_ptr<PoolService> pool);
  /// Takes out the pool on channel; null when there is none.
  std::unique_ptr<PoolService> Remove(wire::Channel channel);
  PoolService* Find(wire::Channel channel) const;
  /// A worker id unique within the run (w0, w1, ...) for a worker of the
  /// pool on channel.
  std::string NewWorkerId(wire::Channel channel);
  /// The pool worker id belongs to; null when it never had one, or its
  /// pool has let it go or is gone.
  PoolService* Of(const std::string& worker_id) const;
  /// The pool worker id belongs to, when it has said HELLO and is still
  /// there; else null.
  PoolService* ConnectedOf(const std::string& worker_id) const;

  const ByChannel& all() const { return pools_; }
  bool empty() const { return pools_.empty(); }
  std::size_t size() const { return pools_.size(); }
  /// Worker ids given out so far.
  std::uint64_t workers_started() const { return next_worker_; }

  /// Forgets the ids of workers gone, once the index has doubled since it
  /// was last pruned: it stays within twice the workers there, at a cost
  /// spread over the ids given out. Call between the pools' turns: an id
  /// is its pool's only once the pool has asked for its start.
  void Prune();

 private:
  ByChannel pools_;
  std::unordered_map<std::string, wire::Channel> channel_of_;  // by worker id
  std::size_t pruned_size_ = 0;
  std::uint64_t next_worker_ = 0;
};

}  // namespace fiber::master
