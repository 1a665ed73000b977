#include "master/worker_loss.hpp"

#include <algorithm>
#include <fstream>
#include <string_view>

#include "diagnostics/log.hpp"
#include "os/run_capture.hpp"
#include "runs/run_dir.hpp"

namespace fiber::master {

namespace {

// "; 2 retries left" after what a lost worker ran: whether it runs again
// (using one of them).
std::string RetriesSaid(int left) {
  if (left <= 0) return "; no retries left, so it fails";
  return "; " + std::to_string(left) + (left == 1 ? " retry" : " retries") + " left";
}

// The last line a worker wrote to its log file, if it has one: why it could
// not start, as the loader said it.
std::string LastWords(const std::string& log_file) {
  std::ifstream in(log_file, std::ios::binary | std::ios::ate);
  if (!in) return "";
  const std::streamoff size = in.tellg();
  const std::streamoff keep = std::min<std::streamoff>(size, 4096);
  std::string tail(static_cast<std::size_t>(keep), '\0');
  in.seekg(size - keep);
  in.read(tail.data(), keep);
  return LastLine(std::move(tail));
}

}  // namespace

std::string LossWhy(const backend::EndCause& cause, const std::string& task) {
  return cause.text + (task.empty() ? "" : " while running " + task);
}

void SayLoss(const WorkerEnd& loss) {
  log::Warning("worker " + loss.id + " lost: " + LossWhy(loss.cause, loss.task) +
               (loss.task.empty() ? "" : RetriesSaid(loss.retries_left)));
}

bool CannotStart(const backend::Exit& exit) {
  return exit.status == ExitStatus::Exited(126) || exit.status == ExitStatus::Exited(127);
}

std::string CannotStartWhy(const backend::Exit& exit, const std::string& run_dir) {
  const std::string said = run_dir.empty() ? "" : LastWords(runs::WorkerLogPath(run_dir, exit.worker_id));
  // A backend that reads the worker's output (a container's) has said it
  // already.
  const bool new_words = !said.empty() && exit.cause.text.find(said) == std::string::npos;
  return "worker " + exit.worker_id + " could not start: " + exit.cause.text +
         (new_words ? " (" + said + ")" : "");
}

std::string BackendCannotStartWhy(const char* backend, const std::string& why) {
  return "the " + std::string(backend) + " backend cannot start workers: " + why;
}

ExitMeaning MeaningOf(const backend::Exit& exit, const Worker* worker, bool holds_tasks, bool terminating) {
  if (!worker) return ExitMeaning::kSettled;
  if (worker->stop_sent && !holds_tasks) return ExitMeaning::kRetired;
  if (terminating) return ExitMeaning::kLost;
  if (exit.not_started) return ExitMeaning::kBackendCannotStart;  // the backend, not the worker, failed
  if (!worker->connected && CannotStart(exit)) return ExitMeaning::kCannotStart;
  return ExitMeaning::kLost;
}

ExitLoss LossOf(const backend::Exit& exit, ExitMeaning meaning, const char* backend, const std::string& run_dir) {
  if (meaning == ExitMeaning::kBackendCannotStart)
    return {exit.worker_id, exit.cause, BackendCannotStartWhy(backend, exit.cause.text)};
  if (meaning == ExitMeaning::kCannotStart)
    return {exit.worker_id, backend::Because(backend::end_word::kCannotStart, exit.cause.text),
            CannotStartWhy(exit, run_dir)};
  return {exit.worker_id, exit.cause, std::nullopt};
}

}  // namespace fiber::master
