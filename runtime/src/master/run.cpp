#include "master/run.hpp"

#include <cstdlib>

#include "backend/engine_adapter.hpp"
#include "config/variables.hpp"
#include "fiber/errors.hpp"
#include "os/mutex.hpp"
#include "runs/run_dir.hpp"

namespace fiber::master {

Run& Run::Get() {
  static os::Mutex mu;
  static std::unique_ptr<Run> run FIBER_GUARDED_BY(mu);
  os::MutexLock lock(mu);
  if (!run) {
    std::unique_ptr<Run> made(new Run(config::Current()));
    std::string err;
    if (!made->Start(&err)) throw Error(err);
    run = std::move(made);
  }
  return *run;
}

bool Run::Start(std::string* err) {
  id_ = settings_.run_id.empty() ? runs::NewRunId() : settings_.run_id;
  if (settings_.run_key_file.empty()) {
    if (!wire::Credentials::Generate(&credentials_, err)) return false;
  } else {
    std::string key;
    if (!wire::ReadKeyFile(settings_.run_key_file, &key)) {
      *err = std::string(config::kRunKeyFileVariable) + "='" + settings_.run_key_file + "' cannot be read";
      return false;
    }
    if (!wire::Credentials::FromClientKey(key, &credentials_, err)) return false;
  }
  dispatcher_ = std::make_unique<Dispatcher>(settings_, credentials_);
  dispatcher_->UseItemFiles(id_);
  return dispatcher_->Start(err);
}

std::unique_ptr<backend::Backend> Run::NewWorkerGroup(const std::string& backend_name,
                                                      std::string* err) {
  std::shared_ptr<backend::WorkerGroups>& groups = backends_[backend_name];
  if (!groups) {
    config::Settings settings = settings_;
    settings.backend = backend_name;
    std::unique_ptr<backend::Backend> made = backend::Make(settings, err);
    if (!made) {
      backends_.erase(backend_name);
      return nullptr;
    }
    groups = std::make_shared<backend::WorkerGroups>(std::move(made));
  }
  return groups->NewGroup();
}

worker::Bootstrap Run::bootstrap() const {
  worker::Bootstrap b;
  b.run_id = id_;
  // The bound endpoint ("tcp://0.0.0.0:PORT" for a wildcard listen_host),
  // with the advertised host in its place when one is set.
  b.master = dispatcher_->endpoint();
  if (!settings_.advertise_host.empty())
    b.master = "tcp://" + settings_.advertise_host + b.master.substr(b.master.rfind(':'));
  b.client_secret = credentials_.client_secret;
  b.heartbeat_interval = settings_.heartbeat_interval;
  b.heartbeat_timeout = settings_.heartbeat_timeout;
  b.start_timeout = settings_.start_timeout;
  // The values are the master's own (fiber run --env set them there): read
  // once per worker started, so every backend hands workers the same.
  b.env = config::WorkerEnvironment(settings_, config::ProcessEnvironment);
  return b;
}

}  // namespace fiber::master
