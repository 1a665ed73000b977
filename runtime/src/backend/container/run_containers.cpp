#include "backend/container/run_containers.hpp"

#include <algorithm>

#include "backend/labels.hpp"
#include "backend/worker_output.hpp"
#include "engine/engine_streams.hpp"
#include "runs/run_dir.hpp"

namespace fiber::backend {

namespace {

// Appends to log_file (when not empty) what the container wrote beyond what
// the file holds, then removes the container, running or not.
bool SaveLogAndRemove(const engine::Client& engine, const RunContainer& c,
                      const std::string& log_file, std::string* err) {
  if (!log_file.empty()) {
    // The master copied its output as it came, until the master ended:
    // what the file holds is skipped, the rest appended as it is read.
    WorkerOutput file(c.worker_id, log_file);
    auto skip = static_cast<std::size_t>(file.kept());
    (void)engine::Logs(engine, c.id, 0, [&](std::string_view text) {
      const std::size_t skipped = std::min(skip, text.size());
      skip -= skipped;
      if (skipped < text.size()) file.Write(text.substr(skipped));
    }, err);
  }
  return engine.Remove(c.id, err);
}

}  // namespace

bool ListRunContainers(const engine::Client& engine, const std::string& run_id,
                       std::vector<RunContainer>* out, std::string* err) {
  std::vector<nlohmann::json> found;
  if (!engine.List({LabelIs(kRunLabel, run_id)}, &found, err)) return false;
  out->clear();
  for (const auto& c : found) {
    RunContainer rc;
    rc.id = c.value("Id", "");
    rc.state = c.value("State", "");
    if (c.contains("Labels") && c["Labels"].is_object())
      rc.worker_id = c["Labels"].value(kWorkerLabel, "");
    out->push_back(std::move(rc));
  }
  return true;
}

bool RemoveRunContainers(const engine::Client& engine, const std::string& run_id,
                         const std::string& run_dir, int* removed, std::string* err) {
  std::vector<RunContainer> containers;
  if (!ListRunContainers(engine, run_id, &containers, err)) return false;
  *removed = 0;
  bool ok = true;
  if (!run_dir.empty()) (void)runs::MakePrivateDirs(runs::WorkersDir(run_dir), err);
  for (const RunContainer& c : containers) {
    const std::string log_file =
        run_dir.empty() || c.worker_id.empty() ? "" : runs::WorkerLogPath(run_dir, c.worker_id);
    std::string why;
    if (SaveLogAndRemove(engine, c, log_file, &why)) {
      ++*removed;
    } else {
      *err = "cannot remove container " + c.id.substr(0, 12) + ": " + why;
      ok = false;
    }
  }
  return ok;
}

}  // namespace fiber::backend
