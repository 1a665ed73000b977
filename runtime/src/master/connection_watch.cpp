#include "master/connection_watch.hpp"

#include <utility>

#include "diagnostics/log.hpp"
#include "master/peer_budget.hpp"
#include "wire/accepted_peers.hpp"

namespace fiber::master {

// Without this, a closed connection shows only when something is next sent
// to its worker: for an idle worker, the periodic probe a heartbeat timeout
// later. The event can come before libzmq has dropped the peer from the
// socket, so the probe repeats each tick for a while.
void ConnectionWatch::Closed(int fd, Clock::time_point now) {
  backlog_.Closed(fd);
  auto it = worker_on_fd_.find(fd);
  if (it == worker_on_fd_.end()) return;
  suspects_[it->second] = now;
  worker_on_fd_.erase(it);
  ProbeSuspects(now);
}

void ConnectionWatch::Read(const wire::Arrival& arrival, const std::string& id, Clock::time_point now) {
  if (backlog_.Read(arrival.fd, id, arrival.bytes, arrival.frames)) Measure(arrival.fd, now);
}

void ConnectionWatch::Sent(const std::string& id, std::size_t bytes) {
  const int due = backlog_.Sent(id, bytes);
  if (due >= 0) due_.push_back(due);
}

void ConnectionWatch::MeasureDue(Clock::time_point now) {
  for (int fd : std::exchange(due_, {})) Measure(fd, now);
}

void ConnectionWatch::Tick(Clock::time_point now) {
  ProbeSuspects(now);
  for (int fd : backlog_.Connections()) Measure(fd, now);
  while (const auto excess = backlog_.OverTotal()) CloseHolding(*excess, now);
}

void ConnectionWatch::ProbeSuspects(Clock::time_point now) {
  for (auto it = suspects_.begin(); it != suspects_.end();) {
    PoolService* pool = now - it->second < heartbeat_timeout_ ? pools_.Of(it->first) : nullptr;
    it = pool && pool->Probe(it->first, now) ? std::next(it) : suspects_.erase(it);
  }
}

void ConnectionWatch::Measure(int fd, Clock::time_point now) {
  TcpCounts counts;
  if (!ReadTcpCounts(fd, &counts)) return;  // closed; its DISCONNECTED is on its way
  if (const auto excess = backlog_.Measure(fd, counts, now)) CloseHolding(*excess, now);
}

// The counters read may have been another descriptor's, the number reused
// before its connection's DISCONNECTED was handled: ShutDown acts only on
// the connection it was. libzmq then reads the end of the stream and frees
// what it held for it.
void ConnectionWatch::CloseHolding(const ConnectionBacklog::Excess& excess, Clock::time_point now) {
  if (!wire::ShutDown(excess.accepted)) return;
  const std::string worker = PeerBudget::PeerOf(excess.id);
  log::Warning("closed the connection " +
               (excess.id.empty() ? std::string("from ") + excess.accepted.peer
                                  : "of worker " + worker + " (" + excess.accepted.peer + ")") +
               ": it holds " + excess.what);
  if (worker.empty()) return;
  if (PoolService* pool = pools_.Of(worker)) pool->LoseWorker(worker, "its connection held " + excess.what, now);
}

}  // namespace fiber::master
