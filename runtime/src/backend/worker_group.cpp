#include "backend/worker_group.hpp"

#include <algorithm>

namespace fiber::backend {

std::unique_ptr<Backend> WorkerGroups::NewGroup() {
  return std::make_unique<WorkerGroup>(shared_from_this());
}

void WorkerGroups::Collect() {
  for (Exit& exit : backend_->Poll()) {
    const auto it = owner_.find(exit.worker_id);
    if (it == owner_.end()) continue;  // its group has gone
    WorkerGroup& group = *it->second;
    owner_.erase(it);
    group.mine_.erase(exit.worker_id);
    group.exits_.push_back(std::move(exit));
  }
}

WorkerGroup::~WorkerGroup() {
  KillAll();
  for (const std::string& id : mine_) groups_->owner_.erase(id);
}

bool WorkerGroup::Start(const Launch& launch, std::string* err) { return StartMany({launch}, err); }

bool WorkerGroup::StartMany(const std::vector<Launch>& launches, std::string* err) {
  // Owned before they start: a backend may report a worker's end before it
  // says the start failed (the rest of a batch).
  for (const Launch& launch : launches) {
    mine_.insert(launch.bootstrap.worker_id);
    groups_->owner_[launch.bootstrap.worker_id] = this;
  }
  Backend& backend = *groups_->backend_;
  return launches.size() == 1 ? backend.Start(launches.front(), err) : backend.StartMany(launches, err);
}

void WorkerGroup::Kill(const std::string& worker_id) {
  if (mine_.count(worker_id)) groups_->backend_->Kill(worker_id);
}

std::vector<Exit> WorkerGroup::Poll() {
  groups_->Collect();
  std::vector<Exit> taken;
  taken.swap(exits_);
  return taken;
}

std::vector<std::string> WorkerGroup::Queued() const {
  std::vector<std::string> queued = groups_->backend_->Queued();
  std::erase_if(queued, [this](const std::string& id) { return !mine_.count(id); });
  return queued;
}

void WorkerGroup::KillAll() {
  for (const std::string& id : mine_) groups_->backend_->Kill(id);
}

}  // namespace fiber::backend
