#include "master/worker_set.hpp"

#include <algorithm>
#include <tuple>

#include "diagnostics/log.hpp"
#include "worker/worker_id.hpp"

namespace fiber::master {

Worker& WorkerSet::Add(const std::string& id, Clock::time_point now) {
  Worker& w = workers_[id];
  w.started = w.last_sent = now;
  return w;
}

Worker* WorkerSet::Find(const std::string& id) {
  auto it = workers_.find(id);
  return it == workers_.end() ? nullptr : &it->second;
}

const Worker* WorkerSet::Find(const std::string& id) const {
  auto it = workers_.find(id);
  return it == workers_.end() ? nullptr : &it->second;
}

void WorkerSet::End(WorkerEnd ended, bool held) {
  if (!workers_.erase(ended.id)) return;
  if (held) {
    held_.emplace(ended.id, std::move(ended));
  } else {
    Keep(std::move(ended));
  }
}

void WorkerSet::Keep(WorkerEnd ended) {
  if (ended.lost) ++lost_by_cause_[ended.cause.word];
  ended_.push_back(std::move(ended));
  if (ended_.size() > kMostEndedKept) ended_.pop_front();
}

std::optional<WorkerEnd> WorkerSet::Settle(const std::string& id, const backend::EndCause* cause) {
  const auto it = held_.find(id);
  if (it == held_.end()) return std::nullopt;
  WorkerEnd ended = std::move(it->second);
  held_.erase(it);
  if (cause) ended.cause = *cause;
  Keep(ended);
  return ended;
}

std::vector<std::string> WorkerSet::Held() const {
  std::vector<std::string> ids;
  for (const auto& [id, ended] : held_) ids.push_back(id);
  return ids;
}

int WorkerSet::Live() const {
  int n = 0;
  for (const auto& [id, w] : workers_) n += w.state != WorkerState::kRetiring;
  return n;
}

int WorkerSet::Starting() const {
  int n = 0;
  for (const auto& [id, w] : workers_) n += !w.connected && w.state != WorkerState::kRetiring;
  return n;
}

bool WorkerSet::Connect(const std::string& id, long pid) {
  Worker* w = Find(id);
  if (!w || w->connected) return false;
  w->connected = true;
  w->pid = pid;
  return true;
}

void WorkerSet::SetCredit(Worker& worker, int credit) {
  worker.credit = credit;
  if (worker.state == WorkerState::kStarting) worker.state = WorkerState::kReady;
}

std::vector<std::pair<const std::string*, Worker*>> WorkerSet::WithFreeCredit(
    const TaskTable& tasks) {
  std::vector<std::pair<std::size_t, std::pair<const std::string*, Worker*>>> free;
  for (auto& [id, w] : workers_) {
    const std::size_t held = tasks.Leases(id);
    if (w.state == WorkerState::kReady && held < static_cast<std::size_t>(w.credit))
      free.push_back({held, {&id, &w}});
  }
  std::stable_sort(free.begin(), free.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::pair<const std::string*, Worker*>> workers;
  workers.reserve(free.size());
  for (const auto& [held, worker] : free) workers.push_back(worker);
  return workers;
}

std::vector<std::string> WorkerSet::PickRetirees(int target, const TaskTable& tasks) const {
  // Starting workers (rank 0) before ready ones, then by tasks held, then
  // the newest first: workers started together share a job
  // (workers_per_job), so the last jobs empty and end first.
  std::vector<std::pair<std::tuple<int, std::size_t, long>, const std::string*>> live;
  for (const auto& [id, w] : workers_) {
    long number = 0;
    (void)worker::WorkerNumber(id, &number);
    if (w.state != WorkerState::kRetiring)
      live.push_back({{w.state == WorkerState::kReady, tasks.Leases(id), -number}, &id});
  }
  std::stable_sort(live.begin(), live.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> picked;
  const std::size_t keep = static_cast<std::size_t>(std::max(target, 0));
  for (std::size_t i = 0; i + keep < live.size(); ++i) picked.push_back(*live[i].second);
  return picked;
}

std::vector<std::string> WorkerSet::IdleSince(Clock::time_point cutoff,
                                              const TaskTable& tasks) const {
  std::vector<std::pair<Clock::time_point, const std::string*>> idle;
  for (const auto& [id, w] : workers_)
    if (w.state == WorkerState::kReady && w.idle_since < cutoff && tasks.Leases(id) == 0)
      idle.push_back({w.idle_since, &id});
  std::stable_sort(idle.begin(), idle.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> ids;
  for (const auto& [since, id] : idle) ids.push_back(*id);
  return ids;
}

DueWork WorkerSet::Due(Clock::time_point now, const Deadlines& d) const {
  DueWork due;
  for (const auto& [id, w] : workers_) {
    if (!w.connected) {
      if (now - w.started > d.start_timeout)
        due.lost.emplace_back(id, backend::Because(backend::end_word::kStartTimeout,
                                                   "it did not connect within " + log::Seconds(d.start_timeout)));
      continue;
    }
    if (w.stop_sent && now - *w.stop_sent > d.heartbeat_timeout) {
      due.kill.push_back(id);
      continue;
    }
    // A worker busy with a long task is silent, but ZeroMQ's heartbeats keep
    // its connection; once they stop, a send to it fails.
    if (now - w.last_sent >= d.probe_interval) due.heartbeat.push_back(id);
  }
  return due;
}

std::vector<WorkerInfo> WorkerSet::Describe(const TaskTable& tasks) const {
  std::vector<WorkerInfo> out;
  for (const auto& [id, w] : workers_) out.push_back({id, w.pid, w.state, tasks.CallsLeasedTo(id)});
  return out;
}

}  // namespace fiber::master
