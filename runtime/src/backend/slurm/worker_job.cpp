#include "backend/slurm/worker_job.hpp"

#include <fcntl.h>
#include <unistd.h>

#include "backend/slurm/run_jobs.hpp"
#include "backend/worker_output.hpp"
#include "diagnostics/log.hpp"
#include "os/descriptor.hpp"
#include "os/whole_file.hpp"
#include "runs/run_dir.hpp"

namespace fiber::backend {

namespace {

// Writes text to a new file only its owner may read.
bool WritePrivate(const std::string& path, const std::string& text, std::string* err) {
  (void)::unlink(path.c_str());
  os::Descriptor fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  const bool ok = fd && os::WriteAll(fd.get(), text) && fd.Close();
  if (!ok) *err = "cannot write " + path;
  return ok;
}

}  // namespace

void WorkerJob::Submitted(const std::string& worker_id, const std::string& dir, const std::string& job_id,
                          long index, JobWatch::Clock::time_point now) {
  job = job_id + "_" + std::to_string(index);
  output = JobOutputFile(dir, job_id, index);
  submitted = now;
  if (log_file.empty()) return;
  // The worker's log is its job's output file (made here, appended to by
  // Slurm), for fiber logs and the run's log followers.
  os::Descriptor made(runs::OpenToAppend(output));
  (void)::unlink(log_file.c_str());
  if (::symlink(output.c_str(), log_file.c_str()) != 0)
    log::Warning("cannot link worker " + worker_id + "'s log to its job's output " + output);
}

JobState WorkerJob::StateIn(const JobListing& listing) const {
  if (const auto found = listing.jobs.find(job); found != listing.jobs.end()) return found->second;
  JobState state;
  if (listing.taken > submitted) {
    // A listing made after the job was submitted lacks it: Slurm forgot it
    // (MinJobAge after its end) or an administrator removed it.
    state.ended = true;
    state.end = Because(end_word::kUnknown, "Slurm no longer lists its job " + job);
  }
  return state;
}

void WorkerJob::Forget(const std::string& worker_id) const {
  (void)::unlink(key_file.c_str());
  if (!log_file.empty()) return;
  WorkerOutput out(worker_id, "");  // the master's stderr, each line headed
  std::string text, unused;
  (void)os::ReadWholeFile(output, &text, &unused);  // a job that left no output file said nothing
  out.Write(text);
  out.Finish();
}

std::string AskedOf(const Resources& r) {
  return std::to_string(r.cpu) + " " + std::to_string(r.memory_mb) + " " + std::to_string(r.gpu);
}

bool WriteKeyFiles(const std::string& dir, const std::vector<Launch>& launches, std::string* err) {
  for (const Launch& launch : launches)
    if (!WritePrivate(KeyFile(dir, launch.bootstrap.worker_id), launch.bootstrap.client_secret + "\n", err)) {
      for (const Launch& written : launches) (void)::unlink(KeyFile(dir, written.bootstrap.worker_id).c_str());
      return false;
    }
  return true;
}

}  // namespace fiber::backend
