// How a pool's worker's end is told: why it was lost, in the words the user
// reads ("killed by SIGSEGV while running square (item 3)"), and what an
// exit the backend reports says of it (the crew applies it). One place for
// those words.
#pragma once

#include <optional>
#include <string>

#include "backend/backend.hpp"
#include "master/worker_set.hpp"

namespace fiber::master {

/// Why a worker was lost, with the task it ran: "killed by SIGSEGV while
/// running square (item 3)".
std::string LossWhy(const backend::EndCause& cause, const std::string& task);
/// "worker w3 lost: WHY while running TASK; N retries left", as a warning.
void SayLoss(const WorkerEnd& loss);
/// An exit of a process the loader or runtime could not start (a missing
/// library or executable, docker run's 126 and 127): every replacement
/// would end the same way.
bool CannotStart(const backend::Exit& exit);
/// "worker w0 could not start: exit status 127 (LAST LINE OF ITS LOG)":
/// what the worker's log file under run_dir (if any) last said, unless the
/// backend said it already.
std::string CannotStartWhy(const backend::Exit& exit, const std::string& run_dir);
/// "the slurm backend cannot start workers: WHY": why no worker of a pool
/// can start, its backend having refused or failed a start.
std::string BackendCannotStartWhy(const char* backend, const std::string& why);

/// What an exit the backend reports comes to for the pool whose worker it
/// was (Crew::Poll applies it).
enum class ExitMeaning {
  kRetired,             // asked to stop with no task left, it went as asked
  kBackendCannotStart,  // the backend could not make it: nor any other worker
  kCannotStart,         // its process could not start (CannotStart) before it
                        // connected: each replacement would fail the same way
  kLost,                // a worker of the pool lost
  kSettled,             // ended already: a loss held since its connection was
                        // lost is told now, with its engine's cause
};
/// What exit means, from the pool's record of its worker (null when it
/// left the set), whether tasks are leased to it, and whether the pool is
/// terminating (when no failed start breaks it).
ExitMeaning MeaningOf(const backend::Exit& exit, const Worker* worker, bool holds_tasks, bool terminating);
/// A worker the backend saw end, to be lost by its pool.
struct ExitLoss {
  std::string id;
  backend::EndCause cause;
  std::optional<std::string> cannot_start;  // set: no worker can start, why
};
/// The loss an exit meaning kBackendCannotStart, kCannotStart or kLost is,
/// told with backend's name and the worker's log under run_dir
/// (CannotStartWhy).
ExitLoss LossOf(const backend::Exit& exit, ExitMeaning meaning, const char* backend, const std::string& run_dir);

}  // namespace fiber::master
