#include "master/task_table.hpp"

#include <algorithm>

namespace fiber::master {

std::uint64_t TaskTable::Add(Task task) {
  const std::uint64_t id = next_id_++;
  tasks_.emplace(id, Entry{std::move(task), {}, 0, {}});
  pending_.push_back(id);
  return id;
}

std::uint64_t TaskTable::LeaseNext(const std::string& worker, Clock::time_point now) {
  const std::uint64_t id = pending_.front();
  pending_.pop_front();
  Entry& entry = tasks_.at(id);
  entry.holder = worker;
  entry.leased_at = now;
  leases_[worker].push_back(id);
  return id;
}

const Task* TaskTable::Find(std::uint64_t id) const {
  auto it = tasks_.find(id);
  return it == tasks_.end() ? nullptr : &it->second.task;
}

std::optional<std::size_t> TaskTable::CallsHeldBy(std::uint64_t id, const std::string& worker) const {
  auto it = tasks_.find(id);
  if (it == tasks_.end() || it->second.holder.empty() || it->second.holder != worker) return std::nullopt;
  return it->second.task.calls.size();
}

std::size_t TaskTable::Leases(const std::string& worker) const {
  auto it = leases_.find(worker);
  return it == leases_.end() ? 0 : it->second.size();
}

int TaskTable::CallsLeasedTo(const std::string& worker) const {
  auto it = leases_.find(worker);
  if (it == leases_.end()) return 0;
  std::size_t calls = 0;
  for (std::uint64_t id : it->second) calls += tasks_.at(id).task.calls.size();
  return static_cast<int>(calls);
}

std::uint64_t TaskTable::Oldest(const std::string& worker) const {
  auto it = leases_.find(worker);
  return it == leases_.end() || it->second.empty() ? 0 : it->second.front();
}

const std::vector<std::uint64_t>& TaskTable::LeasesOf(const std::string& worker) const {
  static const std::vector<std::uint64_t> kNone;
  const auto it = leases_.find(worker);
  return it == leases_.end() ? kNone : it->second;
}

bool TaskTable::TakeBack(const std::string& worker, std::uint64_t id) {
  const auto it = leases_.find(worker);
  if (it == leases_.end()) return false;
  const auto lease = std::find(it->second.begin(), it->second.end(), id);
  if (lease == it->second.end()) return false;
  it->second.erase(lease);
  tasks_.at(id).holder.clear();
  pending_.push_front(id);
  return true;
}

std::string TaskTable::Running(const std::string& worker) const {
  auto it = leases_.find(worker);
  if (it == leases_.end() || it->second.empty()) return "";
  std::string running;
  for (std::uint64_t id : it->second) running += (running.empty() ? "" : " or ") + Describe(id);
  return running;
}

int TaskTable::RetriesLeft(const std::string& worker) const {
  int left = max_retries_;
  if (auto it = leases_.find(worker); it != leases_.end())
    for (std::uint64_t id : it->second) left = std::min(left, max_retries_ - tasks_.at(id).losses);
  return std::max(left, 0);
}

std::string TaskTable::Describe(std::uint64_t id) const {
  const Task& task = tasks_.at(id).task;
  const std::string first = std::to_string(task.first_item);
  return task.function + (task.items <= 1 ? " (item " + first + ")"
                                          : " (items " + first + "-" +
                                                std::to_string(task.first_item + task.items - 1) +
                                                ")");
}

std::optional<TaskTable::Finished> TaskTable::Finish(std::uint64_t id, const std::string& worker,
                                                    std::vector<detail::Outcome>&& outcomes) {
  auto it = tasks_.find(id);
  if (it == tasks_.end() || it->second.holder.empty() || it->second.holder != worker) return std::nullopt;
  Entry& entry = it->second;
  auto lease = leases_.find(worker);
  std::erase(lease->second, id);
  if (lease->second.empty()) leases_.erase(lease);
  const bool ok = std::all_of(outcomes.begin(), outcomes.end(), [](const detail::Outcome& o) {
    return o.kind == detail::Outcome::Kind::kValue;
  });
  ++(ok ? done_ : failed_);
  Finished finished{entry.task.batch, entry.task.items, entry.leased_at, ok};
  entry.task.batch->complete(entry.task.first, std::move(outcomes));
  tasks_.erase(it);
  return finished;
}

void TaskTable::Fail(Entry& entry, const detail::Outcome& outcome) {
  ++failed_;
  entry.task.batch->complete(entry.task.first,
                             std::vector<detail::Outcome>(entry.task.calls.size(), outcome));
}

std::vector<std::uint64_t> TaskTable::Unlease(const std::string& worker) {
  auto lease = leases_.find(worker);
  if (lease == leases_.end()) return {};
  std::vector<std::uint64_t> held = std::move(lease->second);
  leases_.erase(lease);
  return held;
}

void TaskTable::GiveBack(const std::string& worker) {
  const std::vector<std::uint64_t> held = Unlease(worker);
  for (auto id = held.rbegin(); id != held.rend(); ++id) {
    tasks_.at(*id).holder.clear();
    pending_.push_front(*id);
  }
}

std::size_t TaskTable::Lose(const std::string& worker, const std::string& why) {
  const std::vector<std::uint64_t> held = Unlease(worker);
  std::size_t requeued = 0;
  // Back to the front in reverse, so the queue keeps their order.
  for (auto id = held.rbegin(); id != held.rend(); ++id) {
    Entry& entry = tasks_.at(*id);
    entry.holder.clear();
    if (++entry.losses > max_retries_) {
      Fail(entry, {detail::Outcome::Kind::kWorkerLost,
                   "task '" + entry.task.function + "' was lost with its worker " +
                       std::to_string(entry.losses) + " times (the last, " + worker + ": " + why +
                       ")",
                   {}});
      tasks_.erase(*id);
    } else {
      pending_.push_front(*id);
      ++requeued;
    }
  }
  return requeued;
}

void TaskTable::FailAll(const detail::Outcome& outcome) {
  for (auto& [id, entry] : tasks_) Fail(entry, outcome);
  tasks_.clear();
  pending_.clear();
  leases_.clear();
}

}  // namespace fiber::master
