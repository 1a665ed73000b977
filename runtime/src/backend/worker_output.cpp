#include "backend/worker_output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runs/run_dir.hpp"

namespace fiber::backend {

std::string HeadedLine(std::string_view worker_id, std::string_view line) {
  std::string headed;
  headed.reserve(worker_id.size() + line.size() + 4);
  headed.append("[").append(worker_id).append("] ").append(line).append("\n");
  return headed;
}

WorkerOutput::WorkerOutput(std::string worker_id, const std::string& log_file)
    : worker_id_(std::move(worker_id)),
      to_stderr_(log_file.empty()),
      lines_([this](std::string_view line) { headed_ += HeadedLine(worker_id_, line); }) {
  if (to_stderr_) return;
  fd_.Reset(runs::OpenToAppend(log_file));
  struct stat st {};
  if (fd_ && ::fstat(fd_.get(), &st) == 0) kept_ = st.st_size;
  // A log file that cannot be opened loses the output, as a full disk
  // would; the worker itself runs on.
}

WorkerOutput::~WorkerOutput() { Finish(); }

void WorkerOutput::Write(std::string_view text) {
  if (!to_stderr_) {
    if (fd_) os::WriteAll(fd_.get(), text);
    return;
  }
  lines_.Feed(text);
  os::WriteAll(2, headed_);
  headed_.clear();
}

void WorkerOutput::Finish() {
  if (!to_stderr_) return;
  lines_.Finish();
  os::WriteAll(2, headed_);
  headed_.clear();
}

}  // namespace fiber::backend
