#include "backend/container/run_containers.hpp"

#include <fcntl.h>
#include <unistd.h>

#include "backend/labels.hpp"
#include "runs/run_dir.hpp"

namespace fiber::backend {

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

bool SaveLogAndRemove(const engine::Client& engine, const std::string& id,
                      const std::string& log_file, std::string* err) {
  if (!log_file.empty()) {
    std::string output;
    const int fd = ::open(log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd >= 0 && engine.Logs(id, 0, &output, err))
      for (std::size_t at = 0; at < output.size();) {
        const ssize_t n = ::write(fd, output.data() + at, output.size() - at);
        if (n <= 0) break;
        at += static_cast<std::size_t>(n);
      }
    if (fd >= 0) ::close(fd);
  }
  return engine.Remove(id, err);
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
    if (SaveLogAndRemove(engine, c.id, log_file, &why)) {
      ++*removed;
    } else {
      *err = "cannot remove container " + c.id.substr(0, 12) + ": " + why;
      ok = false;
    }
  }
  return ok;
}

}  // namespace fiber::backend
