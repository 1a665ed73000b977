// The run: one per master process, made when the first pool needs it. It
// holds the run's id, its CURVE keys and one Dispatcher listening on one
// endpoint, through which every pool of the program serves its workers.
// Thread-safe.
#pragma once

#include <memory>
#include <string>

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

 private:
  explicit Run(config::Settings settings) : settings_(std::move(settings)) {}
  [[nodiscard]] bool Start(std::string* err);

  std::string id_;
  config::Settings settings_;
  wire::Credentials credentials_;
  std::unique_ptr<Dispatcher> dispatcher_;
};

}  // namespace fiber::master
