#include "backend/slurm/held_workers.hpp"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "os/whole_file.hpp"

namespace fiber::backend {

// Its first line is why, each next one a worker id.

std::string HeldWorkersFile(const std::string& slurm_dir) { return slurm_dir + "/held-workers"; }

void WriteHeldWorkers(const std::string& slurm_dir, const HeldWorkers& held) {
  const std::string path = HeldWorkersFile(slurm_dir);
  if (held.worker_ids.empty()) {
    (void)::unlink(path.c_str());
    return;
  }
  const std::string aside = path + ".new";
  {
    std::ofstream out(aside, std::ios::trunc);
    out << held.why.substr(0, held.why.find('\n')) << '\n';
    for (const std::string& id : held.worker_ids) out << id << '\n';
  }
  (void)std::rename(aside.c_str(), path.c_str());
}

HeldWorkers ReadHeldWorkers(const std::string& slurm_dir) {
  HeldWorkers held;
  std::string text, unused;
  if (slurm_dir.empty() || !os::ReadWholeFile(HeldWorkersFile(slurm_dir), &text, &unused)) return held;
  std::istringstream lines(text);
  std::getline(lines, held.why);
  for (std::string id; std::getline(lines, id);)
    if (!id.empty()) held.worker_ids.push_back(id);
  return held;
}

}  // namespace fiber::backend
