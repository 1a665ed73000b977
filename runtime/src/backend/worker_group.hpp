// A run's backend for one engine, shared by every pool of the run that uses
// it (WorkerGroups), and one pool's share of it (a WorkerGroup): the pool
// starts and kills workers through the run's one backend and sees only its
// own workers' exits and queued workers. So a run has one fork server, one
// container event stream and one pod watch however many Pools, Processes
// and Managers it has. Driven from the master's I/O thread only, like every
// backend; not thread-safe.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "backend/backend.hpp"

namespace fiber::backend {

class WorkerGroup;

class WorkerGroups : public std::enable_shared_from_this<WorkerGroups> {
 public:
  explicit WorkerGroups(std::unique_ptr<Backend> backend) : backend_(std::move(backend)) {}
  /// The backend's destructor ends whatever still runs.
  ~WorkerGroups() = default;
  WorkerGroups(const WorkerGroups&) = delete;
  WorkerGroups& operator=(const WorkerGroups&) = delete;

  /// A new group of workers on this backend, for one pool.
  std::unique_ptr<Backend> NewGroup();

 private:
  friend class WorkerGroup;
  /// Takes the backend's exits, each to the group of its worker.
  void Collect();

  std::unique_ptr<Backend> backend_;
  std::map<std::string, WorkerGroup*> owner_;  // by worker id, until its exit is taken
};

/// One pool's workers on the run's backend: a Backend to its pool.
class WorkerGroup : public Backend {
 public:
  explicit WorkerGroup(std::shared_ptr<WorkerGroups> groups) : groups_(std::move(groups)) {}
  /// Kills the group's workers still there; their exits go to nobody.
  ~WorkerGroup() override;

  const char* name() const override { return groups_->backend_->name(); }
  [[nodiscard]] bool Start(const Launch& launch, std::string* err) override;
  [[nodiscard]] bool StartMany(const std::vector<Launch>& launches, std::string* err) override;
  void Kill(const std::string& worker_id) override;
  std::vector<Exit> Poll() override;
  std::vector<std::string> Queued() const override;
  /// Kills the group's workers; the run's backend, not the group, waits for
  /// them when the run ends, so other pools are not held up meanwhile.
  void KillAll() override;
  int MaxStarting() const override { return groups_->backend_->MaxStarting(); }

 private:
  friend class WorkerGroups;
  std::shared_ptr<WorkerGroups> groups_;
  std::set<std::string> mine_;  // started, exit not yet taken
  std::vector<Exit> exits_;     // collected, not yet taken by Poll
};

}  // namespace fiber::backend
