#include "master/share_table.hpp"

#include <unistd.h>

#include <iterator>
#include <random>

#include "wire/frames.hpp"
#include "wire/limits.hpp"

namespace fiber::master {

using wire::Op;
using wire::Status;

ShareTable::ShareTable(std::shared_ptr<PeerBudget> budget) : budget_(std::move(budget)) {
  std::random_device random;
  key_ = (std::uint64_t{random()} << 32) | random();
}

bool ShareTable::Serves(Op op) {
  switch (op) {
    case Op::kShareNew:
    case Op::kShareSend:
    case Op::kShareClaim:
    case Op::kShareRelease:
    case Op::kShareGet: return true;
    default: return false;
  }
}

void ShareTable::Handle(const std::string& peer, wire::Request& request, const Answer& answer) {
  if (request.op == Op::kShareNew) return Create(peer, request, answer);
  auto it = shares_.find(request.object);
  if (it == shares_.end()) {
    const bool was = request.object != 0 && request.object < next_id_;
    (void)answer(Status::kNoSuchObject,
                 "shared value " + std::to_string(request.object) +
                     (was ? " was freed: no process held a handle to it any more"
                          : " does not exist in this run"));
    return;
  }
  Share& share = it->second;
  switch (request.op) {
    case Op::kShareSend: {
      const std::uint64_t token = next_token_++;
      share.tokens.insert(token);
      (void)answer(Status::kOk, wire::EncodeU64(token));
      return;
    }
    case Op::kShareClaim: {
      std::uint64_t token = 0;
      bool hold = false;
      if (!wire::DecodeClaim(request.body, &token, &hold)) {
        (void)answer(Status::kNoSuchObject, "a malformed claim of a shared value");
        return;
      }
      if (hold) ++share.holders[peer];
      share.tokens.erase(token);
      (void)answer(Status::kOk, {});
      return FreeIfUnheld(it);
    }
    case Op::kShareRelease: {
      auto held = share.holders.find(peer);
      if (held != share.holders.end() && --held->second == 0) share.holders.erase(held);
      (void)answer(Status::kOk, {});
      return FreeIfUnheld(it);
    }
    case Op::kShareGet: (void)answer(Status::kOk, std::string(share.memory.bytes())); return;
    default: break;
  }
  (void)answer(Status::kNoSuchObject, "not a shared value's request");
}

void ShareTable::Create(const std::string& peer, wire::Request& request, const Answer& answer) {
  // A get from any process but the master would bring it in one message.
  if (std::string fault = wire::MessageSizeFault(request.body.size()); !fault.empty()) {
    (void)answer(Status::kRefused, "cannot hold " + fault);
    return;
  }
  Share share;
  std::string err;
  const PeerBudget::Usage cost{.bytes = request.body.size() + wire::kHeldOverheadBytes,
                               .objects = 1,
                               .descriptors = 1};
  if (!budget_->Take(peer, cost, &share.hold, &err)) {
    (void)answer(Status::kRefused, "cannot share it: " + err);
    return;
  }
  const std::uint64_t id = next_id_;
  if (!os::SealedMemfd::Make(wire::SharedMemoryName(key_, id), request.body, &share.memory, &err)) {
    (void)answer(Status::kRefused, "cannot share it: " + err);
    return;
  }
  request.body = {};  // the memfd is the one copy now
  share.holders[peer] = 1;
  ++next_id_;
  const wire::SharedPlace place{id, static_cast<std::uint64_t>(::getpid()),
                                static_cast<std::uint64_t>(share.memory.fd()), key_};
  shares_.emplace(id, std::move(share));
  (void)answer(Status::kOk, wire::Encode(place));
}

void ShareTable::FreeIfUnheld(Shares::iterator it) {
  if (it->second.holders.empty() && it->second.tokens.empty()) shares_.erase(it);
}

std::vector<std::string> ShareTable::Holders() const {
  std::set<std::string> peers;
  for (const auto& [id, share] : shares_)
    for (const auto& [peer, n] : share.holders)
      if (!peer.empty()) peers.insert(peer);
  return {peers.begin(), peers.end()};
}

void ShareTable::ReleaseHeldBy(const std::string& peer) {
  for (auto it = shares_.begin(); it != shares_.end();) {
    auto next = std::next(it);
    if (it->second.holders.erase(peer) != 0) FreeIfUnheld(it);
    it = next;
  }
}

std::size_t ShareTable::bytes() const {
  std::size_t n = 0;
  for (const auto& [id, share] : shares_) n += share.memory.bytes().size();
  return n;
}

}  // namespace fiber::master
