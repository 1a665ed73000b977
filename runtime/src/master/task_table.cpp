#include "master/task_table.hpp"

namespace fiber::master {

std::uint64_t TaskTable::Add(Task task) {
  const std::uint64_t id = next_id_++;
  tasks_.emplace(id, std::move(task));
  pending_.push_back(id);
  return id;
}

std::uint64_t TaskTable::LeaseNext(const std::string& worker) {
  const std::uint64_t id = pending_.front();
  pending_.pop_front();
  tasks_.at(id).worker = worker;
  return id;
}

Task* TaskTable::Find(std::uint64_t id) {
  auto it = tasks_.find(id);
  return it == tasks_.end() ? nullptr : &it->second;
}

void TaskTable::Requeue(std::uint64_t id) {
  tasks_.at(id).worker.clear();
  pending_.push_front(id);
}

void TaskTable::Finish(std::uint64_t id, std::vector<detail::Outcome>&& outcomes) {
  auto it = tasks_.find(id);
  if (it == tasks_.end()) return;
  it->second.batch->complete(it->second.first, std::move(outcomes));
  tasks_.erase(it);
}

void TaskTable::Fail(std::uint64_t id, detail::Outcome::Kind kind, const std::string& message) {
  Task* task = Find(id);
  if (!task) return;
  std::vector<detail::Outcome> outcomes(task->calls.size(), detail::Outcome{kind, message});
  if (task->worker.empty()) std::erase(pending_, id);
  Finish(id, std::move(outcomes));
}

void TaskTable::FailAll(detail::Outcome::Kind kind, const std::string& message) {
  pending_.clear();
  for (auto& [id, task] : tasks_)
    task.batch->complete(task.first, std::vector<detail::Outcome>(
                                         task.calls.size(), detail::Outcome{kind, message}));
  tasks_.clear();
}

}  // namespace fiber::master
