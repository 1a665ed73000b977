// One worker's Slurm job as the run's Slurm backend follows it, from the
// key written for it to its end: the files it has in the run's Slurm
// directory (its key, which only its owner reads and the worker deletes
// once read; its job's output, which the worker's log links to) and how
// squeue's listing says it stands. Used by SlurmBackend, on the master's
// I/O thread.
#pragma once

#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "backend/slurm/job_watch.hpp"

namespace fiber::backend {

struct WorkerJob {
  std::string job;  // "12_3", as scancel takes it; "" until submitted
  std::string key_file;
  std::string output;    // the job's output file
  std::string log_file;  // the worker's log, linked to output; "" when none
  std::string asked;     // its resources (AskedOf)
  JobWatch::Clock::time_point submitted;
  bool cancelled = false;  // fiber cancelled it (Kill, or a hopeless wait)

  /// Makes task index of array job_id its job, submitted at now, its
  /// output a file of dir (the run's Slurm directory); the worker's log, if
  /// it keeps one, becomes a link to that file.
  void Submitted(const std::string& worker_id, const std::string& dir, const std::string& job_id, long index,
                 JobWatch::Clock::time_point now);
  /// How its job stands in listing; ended, how unknown, when a listing
  /// made after it was submitted lacks it.
  JobState StateIn(const JobListing& listing) const;
  /// Forgets it once ended: its key file goes, its output stays (without a
  /// log file of its own, it is copied to stderr, each line headed).
  void Forget(const std::string& worker_id) const;
};

/// What a job asks Slurm for, as one key: jobs asking the same fare alike.
std::string AskedOf(const Resources& resources);

/// Writes each launch's key to its KeyFile in dir, which only its owner may
/// read. False with *err, and none of them left, when one cannot be written.
[[nodiscard]] bool WriteKeyFiles(const std::string& dir, const std::vector<Launch>& launches, std::string* err);

}  // namespace fiber::backend
