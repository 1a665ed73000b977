// How a pool's worker's end is told: why it was lost, in the words the user
// reads ("killed by SIGSEGV while running square (item 3)"), and what an
// exit the backend reports says of it. One place for those words.
#pragma once

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
/// A cause only the engine knows, which neither the program's own end nor
/// the master's kill of a lost worker (its pod deleted, its job cancelled)
/// gives.
bool EngineEnded(const backend::EndCause& cause);

}  // namespace fiber::master
