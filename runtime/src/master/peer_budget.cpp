#include "master/peer_budget.hpp"

#include <algorithm>
#include <string_view>
#include <vector>

#include "diagnostics/log.hpp"
#include "os/descriptor_limit.hpp"
#include "os/mutex.hpp"

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

std::shared_ptr<PeerBudget> PeerBudget::Make(wire::PeerLimits limits) {
  limits.all_descriptors = std::min(limits.all_descriptors, os::DescriptorLimit() / 4);
  limits.all_mappings = std::min(limits.all_mappings, os::MappingLimit() / 4);
  limits.descriptors = std::min(limits.descriptors, std::max<std::size_t>(limits.all_descriptors / 4, 1));
  limits.mappings = std::min(limits.mappings, std::max<std::size_t>(limits.all_mappings / 4, 1));
  return std::shared_ptr<PeerBudget>(new PeerBudget(limits));
}

namespace {

// What a peer's bounds count, in the words of a refusal.
struct Bound {
  std::size_t PeerBudget::Usage::*field;
  std::size_t wire::PeerLimits::*limit;
  const char* what;
};
constexpr Bound kPeerBounds[] = {
    {&PeerBudget::Usage::requests, &wire::PeerLimits::requests, "requests in flight"},
    {&PeerBudget::Usage::bytes, &wire::PeerLimits::bytes, "bytes of items, calls and values"},
    {&PeerBudget::Usage::objects, &wire::PeerLimits::objects,
     "open queues, locks, events, semaphores and shared values"},
    {&PeerBudget::Usage::descriptors, &wire::PeerLimits::descriptors,
     "shared values (a descriptor of the master's each)"},
    {&PeerBudget::Usage::mappings, &wire::PeerLimits::mappings,
     "item files (a mapping of the master's each)"},
};
constexpr Bound kAllBounds[] = {
    {&PeerBudget::Usage::descriptors, &wire::PeerLimits::all_descriptors,
     "shared values (a descriptor of the master's each)"},
    {&PeerBudget::Usage::mappings, &wire::PeerLimits::all_mappings,
     "item files (a mapping of the master's each)"},
};

// The first of bounds that held plus more would pass, in words ("WHO
// holds N what of the L MAY"); empty when within them all.
template <std::size_t N>
std::string Over(const Bound (&bounds)[N], const PeerBudget::Usage& held,
                 const PeerBudget::Usage& more, const wire::PeerLimits& limits, const char* who,
                 const char* may) {
  for (const Bound& b : bounds) {
    const std::size_t now = held.*b.field, ask = more.*b.field, limit = limits.*b.limit;
    if (ask == 0 || now + ask <= limit) continue;
    return std::string(who) + " " + std::to_string(now) + " " + b.what + " of the " +
           std::to_string(limit) + " " + may + " and asked for " + std::to_string(ask) + " more";
  }
  return "";
}

void Add(PeerBudget::Usage* to, const PeerBudget::Usage& u, bool add) {
  for (const Bound& b : kPeerBounds) {
    if (add)
      to->*b.field += u.*b.field;
    else
      to->*b.field -= u.*b.field;
  }
}

}  // namespace

bool PeerBudget::Take(const std::string& peer, Usage usage, Hold* hold, std::string* err) {
  *hold = Hold();  // what it held returns first, outside the lock
  os::MutexLock lock(mu_);
  if (!peer.empty()) {
    const auto it = held_.find(peer);
    std::string over = Over(kPeerBounds, it == held_.end() ? Usage{} : it->second.usage, usage,
                            limits_, "it holds", "a worker may (wire/limits.hpp)");
    if (over.empty())
      over = Over(kAllBounds, all_, usage, limits_, "the run's workers hold",
                  "they may together (a quarter of the master's)");
    if (!over.empty()) {
      *err = "refused: " + over;
      // Once per peer while it holds anything; one asking too much at once
      // holds nothing to remember it by.
      const bool first = it == held_.end() ? unheld_refusals_.Allow() : !it->second.warned;
      if (it != held_.end()) it->second.warned = true;
      if (first) log::Warning("worker " + peer + " is over a bound, so its request is refused: " + over);
      return false;
    }
    Add(&all_, usage, true);
  }
  Add(&held_[peer].usage, usage, true);
  hold->budget_ = shared_from_this();
  hold->peer_ = peer;
  hold->usage_ = usage;
  return true;
}

void PeerBudget::Charge(const std::string& peer, const Usage& usage, Hold* hold) {
  os::MutexLock lock(mu_);
  if (!peer.empty()) Add(&all_, usage, true);
  Add(&held_[peer].usage, usage, true);
  if (!hold->budget_) {
    hold->budget_ = shared_from_this();
    hold->peer_ = peer;
  }
  Add(&hold->usage_, usage, true);
}

void PeerBudget::Return(const std::string& peer, const Usage& usage) {
  os::MutexLock lock(mu_);
  const auto it = held_.find(peer);
  if (it == held_.end()) return;
  if (!peer.empty()) Add(&all_, usage, false);
  Usage& u = it->second.usage;
  Add(&u, usage, false);
  if (u.requests == 0 && u.bytes == 0 && u.objects == 0 && u.descriptors == 0 && u.mappings == 0)
    held_.erase(it);
}

PeerBudget::Usage PeerBudget::Of(const std::string& peer) const {
  os::MutexLock lock(mu_);
  const auto it = held_.find(peer);
  return it == held_.end() ? Usage{} : it->second.usage;
}

PeerBudget::Usage PeerBudget::All() const {
  os::MutexLock lock(mu_);
  return all_;
}

std::size_t PeerBudget::BytesLeft(const std::string& peer) const {
  if (peer.empty()) return SIZE_MAX;
  os::MutexLock lock(mu_);
  const auto it = held_.find(peer);
  const std::size_t held = it == held_.end() ? 0 : it->second.usage.bytes;
  return held < limits_.bytes ? limits_.bytes - held : 0;
}

std::vector<std::string> PeerBudget::Waiting() const {
  os::MutexLock lock(mu_);
  std::vector<std::string> peers;
  for (const auto& [peer, h] : held_)
    if (!peer.empty() && h.usage.requests > 0) peers.push_back(peer);
  return peers;
}

}  // namespace fiber::master
