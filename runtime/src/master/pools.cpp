#include "master/pools.hpp"

#include <algorithm>

#include "worker/worker_id.hpp"

namespace fiber::master {

namespace {

// Below this many ids the index is not pruned: a handful of stale ones cost nothing.
constexpr std::size_t kLeastPruned = 64;

}  // namespace

void Pools::Add(std::unique_ptr<PoolService> pool) {
  const wire::Channel channel = pool->channel();
  pools_[channel] = std::move(pool);
}

std::unique_ptr<PoolService> Pools::Remove(wire::Channel channel) {
  const auto it = pools_.find(channel);
  if (it == pools_.end()) return nullptr;
  std::unique_ptr<PoolService> pool = std::move(it->second);
  pools_.erase(it);
  return pool;
}

PoolService* Pools::Find(wire::Channel channel) const {
  const auto it = pools_.find(channel);
  return it == pools_.end() ? nullptr : it->second.get();
}

std::string Pools::NewWorkerId(wire::Channel channel) {
  std::string id = worker::WorkerId(next_worker_++);
  channel_of_[id] = channel;
  return id;
}

PoolService* Pools::Of(const std::string& worker_id) const {
  const auto it = channel_of_.find(worker_id);
  if (it == channel_of_.end()) return nullptr;
  PoolService* pool = Find(it->second);
  return pool && pool->Owns(worker_id) ? pool : nullptr;
}

PoolService* Pools::ConnectedOf(const std::string& worker_id) const {
  PoolService* pool = Of(worker_id);
  return pool && pool->HasConnected(worker_id) ? pool : nullptr;
}

void Pools::Prune() {
  if (channel_of_.size() < std::max(kLeastPruned, 2 * pruned_size_)) return;
  std::erase_if(channel_of_, [this](const auto& entry) { return Of(entry.first) == nullptr; });
  pruned_size_ = channel_of_.size();
}

}  // namespace fiber::master
