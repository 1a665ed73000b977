// The run: one per master process, made when the first pool needs it. It
// holds the run's id, its CURVE keys and one Dispatcher listening on one
// endpoint, through which every pool of the program serves its workers,
// and one backend per backend name, made when the first pool uses it, from
// which each pool takes a group of workers. Thread-safe, except as marked.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "backend/worker_group.hpp"
#include "config/settings.hpp"
#include "master/dispatcher.hpp"
#include "worker/bootstrap.hpp"

namespace fiber::master {

class Run {
 public:
  /// The run of this process, made on first use from the settings fiber::init
  /// resolved; throws fiber::Error when it cannot listen.
  static Run& Get();

  const std::string& id() const { return id_; }
  const config::Settings& settings() const { return settings_; }
  Dispatcher& dispatcher() { return *dispatcher_; }
  /// What every worker of the run is handed (worker_id left empty).
  worker::Bootstrap bootstrap() const;
  /// A new group of workers on the run's backend of that name (made with
  /// the run's settings on first use), for one pool; nullptr with *err for
  /// an unknown name. I/O thread only.
  std::unique_ptr<backend::Backend> NewWorkerGroup(const std::string& backend_name, std::string* err);

 private:
  explicit Run(config::Settings settings) : settings_(std::move(settings)) {}
  [[nodiscard]] bool Start(std::string* err);

  std::string id_;
  config::Settings settings_;
  wire::Credentials credentials_;
  /// By backend name; I/O thread only. Declared before the dispatcher, so
  /// the backends outlive the pools that take workers from them.
  std::map<std::string, std::shared_ptr<backend::WorkerGroups>> backends_;
  std::unique_ptr<Dispatcher> dispatcher_;
};

}  // namespace fiber::master
