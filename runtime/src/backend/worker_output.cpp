#include "backend/worker_output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fiber::backend {

namespace {

void WriteAll(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n <= 0) return;
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}

}  // namespace

WorkerOutput::WorkerOutput(std::string worker_id, const std::string& log_file)
    : worker_id_(std::move(worker_id)), to_stderr_(log_file.empty()) {
  if (to_stderr_) return;
  fd_ = ::open(log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  struct stat st {};
  if (fd_ >= 0 && ::fstat(fd_, &st) == 0) kept_ = st.st_size;
  // A log file that cannot be opened loses the output, as a full disk
  // would; the worker itself runs on.
}

WorkerOutput::~WorkerOutput() {
  Finish();
  if (fd_ >= 0) ::close(fd_);
}

void WorkerOutput::Write(std::string_view text) {
  if (!to_stderr_) {
    if (fd_ >= 0) WriteAll(fd_, text);
    return;
  }
  partial_.append(text);
  std::string headed;
  std::size_t at = 0;
  for (std::size_t end; (end = partial_.find('\n', at)) != std::string::npos; at = end + 1)
    headed += "[" + worker_id_ + "] " + partial_.substr(at, end + 1 - at);
  partial_.erase(0, at);
  WriteAll(2, headed);
}

void WorkerOutput::Finish() {
  if (partial_.empty()) return;
  partial_ += '\n';
  Write({});
}

}  // namespace fiber::backend
