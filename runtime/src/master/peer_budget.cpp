#include "master/peer_budget.hpp"

#include <string_view>
#include <vector>

#include "diagnostics/log.hpp"

namespace fiber::master {

PeerBudget::Hold& PeerBudget::Hold::operator=(Hold&& other) noexcept {
  if (this == &other) return *this;
  if (budget_) budget_->Return(peer_, usage_);
  budget_ = std::move(other.budget_);
  peer_ = std::move(other.peer_);
  usage_ = other.usage_;
  other.budget_.reset();
  return *this;
}

PeerBudget::Hold::~Hold() {
  if (budget_) budget_->Return(peer_, usage_);
}

std::string PeerBudget::PeerOf(const std::string& routing_id) {
  constexpr std::string_view kClient = ".client";
  const std::string_view id = routing_id;
  if (id.size() > kClient.size() && id.substr(id.size() - kClient.size()) == kClient)
    return std::string(id.substr(0, id.size() - kClient.size()));
  return routing_id;
}

namespace {

// What passing limit of what would be, in words; empty when within it.
std::string Over(std::size_t held, std::size_t more, std::size_t limit, const char* what) {
  if (more == 0 || held + more <= limit) return "";
  return "it holds " + std::to_string(held) + " " + what + " of the " + std::to_string(limit) +
         " a worker may (wire/limits.hpp) and asked for " + std::to_string(more) + " more";
}

}  // namespace

bool PeerBudget::Take(const std::string& peer, Usage usage, Hold* hold, std::string* err) {
  *hold = Hold();  // what it held returns first, outside the lock
  std::lock_guard<std::mutex> lock(mu_);
  if (!peer.empty()) {
    const auto it = held_.find(peer);
    const Usage now = it == held_.end() ? Usage{} : it->second.usage;
    std::string over = Over(now.requests, usage.requests, limits_.requests, "requests in flight");
    if (over.empty()) over = Over(now.bytes, usage.bytes, limits_.bytes, "bytes of items and calls");
    if (over.empty()) over = Over(now.objects, usage.objects, limits_.objects,
                                         "open queues, locks, events and semaphores");
    if (!over.empty()) {
      *err = "refused: " + over;
      // Once per peer while it holds anything; one asking too much at once
      // holds nothing to remember it by.
      const bool first = it == held_.end() ? unheld_refusals_.Allow() : !it->second.warned;
      if (it != held_.end()) it->second.warned = true;
      if (first) log::Warning("worker " + peer + " is over a bound, so its request is refused: " + over);
      return false;
    }
  }
  Held& h = held_[peer];
  h.usage.requests += usage.requests;
  h.usage.bytes += usage.bytes;
  h.usage.objects += usage.objects;
  hold->budget_ = shared_from_this();
  hold->peer_ = peer;
  hold->usage_ = usage;
  return true;
}

void PeerBudget::Return(const std::string& peer, const Usage& usage) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = held_.find(peer);
  if (it == held_.end()) return;
  Usage& u = it->second.usage;
  u.requests -= usage.requests;
  u.bytes -= usage.bytes;
  u.objects -= usage.objects;
  if (u.requests == 0 && u.bytes == 0 && u.objects == 0) held_.erase(it);
}

PeerBudget::Usage PeerBudget::Of(const std::string& peer) const {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = held_.find(peer);
  return it == held_.end() ? Usage{} : it->second.usage;
}

std::vector<std::string> PeerBudget::Waiting() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> peers;
  for (const auto& [peer, h] : held_)
    if (!peer.empty() && h.usage.requests > 0) peers.push_back(peer);
  return peers;
}

}  // namespace fiber::master
