// The user's jobs as one `squeue --me` lists them, shared by every master
// of the user on this machine (each run's JobWatch) through a file beside
// their runs: a master that needs a listing newer than the file holds takes
// the file's lock, runs squeue (at most one every kSqueueFloor across all
// of them) and writes what it said there whole; the others read it. A
// master that dies holding the lock frees it (flock). Thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <string>

namespace fiber::backend {

/// The least time between two squeues of the user's masters on a machine
/// (documented in fiber-config(5)), and the pace of a run's watch while its
/// jobs change (job_watch.hpp).
inline constexpr std::chrono::seconds kSqueueFloor{1};

struct UserJobs {
  /// When its squeue started, on the steady clock (CLOCK_MONOTONIC: the
  /// same in every process of the machine); {}: none.
  std::chrono::steady_clock::time_point taken{};
  /// Why that squeue failed; "" when it answered.
  std::string error;
  /// What it printed (ParseSqueue's input).
  std::string text;
};

/// The file through which the masters whose runs live in runs_root share
/// squeue on this machine, for the Slurm cluster this process's commands
/// reach (kSlurmVariables): hidden, so no run's; its lock is path + ".lock".
std::string SqueueSharePath(const std::string& runs_root);

/// The user's jobs as listed at or after since, into *jobs (its error the
/// squeue's when that failed): from share when it holds such a listing, else
/// from a squeue run here under share's lock. share "" or unusable: a
/// squeue of this caller's own. False (*err) only when stopping cut a wait
/// short.
[[nodiscard]] bool ListUserJobs(const std::string& share, std::chrono::steady_clock::time_point since,
                                const std::atomic<bool>& stopping, UserJobs* jobs, std::string* err);

}  // namespace fiber::backend
