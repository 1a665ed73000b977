#include "backend/container/container_run_records.hpp"

#include <iterator>

#include "backend/container/container_backend.hpp"
#include "backend/container/run_containers.hpp"
#include "backend/labels.hpp"
#include "config/backend_names.hpp"
#include "engine/engine_socket.hpp"
#include "engine/engine_streams.hpp"

namespace fiber::backend {

namespace {

// The engine's word for a container's state, as a phase.
WorkerRecord::Phase PhaseOf(const std::string& state) {
  if (state == "created") return WorkerRecord::Phase::kPending;
  if (state == "exited" || state == "dead" || state == "removing") return WorkerRecord::Phase::kEnded;
  return WorkerRecord::Phase::kRunning;
}

}  // namespace

std::vector<const char*> ContainerRunRecords::variables() const {
  return std::vector<const char*>(std::begin(engine::kSocketVariables), std::end(engine::kSocketVariables));
}

const RecordWords& ContainerRunRecords::words() const {
  static const RecordWords kWords{"containers", "container", "id", "state", false};
  return kWords;
}

bool ContainerRunRecords::Connect(const RunPlace& run, engine::Client* out, std::string* err) {
  const std::string engine = config::EngineOf(run.backend, run.Setting("engine"));
  if (engine.empty()) {
    *err = "run " + run.id + " runs no containers (" + run.backend + " backend)";
    return false;
  }
  return engine::Client::Connect(engine, run.Getenv(), out, err);
}

RunsWorkers ContainerRunRecords::List(const std::vector<RunPlace>& runs) const {
  RunsWorkers out;
  for (const RunPlace& run : runs) {
    engine::Client engine;
    std::vector<RunContainer> found;
    std::string err;
    if (!Connect(run, &engine, &err) || !ListRunContainers(engine, run.id, &found, &err)) {
      out.errors[run.id] = err;
      continue;
    }
    std::vector<WorkerRecord>& workers = out.workers[run.id];
    for (const RunContainer& c : found) {
      WorkerRecord w;
      w.worker_id = c.worker_id;
      w.where = c.id.substr(0, 12);
      w.phase = PhaseOf(c.state);
      w.engine_state = c.state;
      workers.push_back(std::move(w));
    }
  }
  return out;
}

bool ContainerRunRecords::ReadLog(const RunPlace& run, const std::string& worker_id, bool follow, bool timestamps,
                                  const std::function<bool(std::string_view)>& show, bool* found,
                                  std::string* err) const {
  *found = false;
  engine::Client engine;
  std::vector<nlohmann::json> containers;
  std::string unused;
  if (!Connect(run, &engine, &unused) ||
      !engine.List({LabelIs(kRunLabel, run.id), LabelIs(kWorkerLabel, worker_id)}, &containers, &unused) ||
      containers.empty())
    return true;
  *found = true;
  const std::string id = containers.front().value("Id", "");
  return follow ? engine::FollowLogs(engine, id, show, err, nullptr, timestamps)
                : engine::Logs(engine, id, 0, [&](std::string_view chunk) { show(chunk); }, err, timestamps);
}

bool ContainerRunRecords::Remove(const RunPlace& run, int* removed, std::string* err) const {
  *removed = 0;
  engine::Client engine;
  return Connect(run, &engine, err) && RemoveRunContainers(engine, run.id, run.dir, removed, err);
}

}  // namespace fiber::backend
