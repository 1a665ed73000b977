#include "backend/local/output_relay.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "backend/worker_output.hpp"

namespace fiber::backend {

int OutputRelay::Open(const std::string& id, std::string* err) {
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC) != 0) {
    *err = std::string("cannot make a pipe for the worker's output: ") + std::strerror(errno);
    return -1;
  }
  // Read only when poll says so, and drained at the end without waiting
  // on writers (a worker's children) that may outlive it.
  ::fcntl(ends[0], F_SETFL, O_NONBLOCK);
  Pipe p;
  p.fd.Reset(ends[0]);
  p.lines = std::make_unique<LineSplitter>(
      [this, id](std::string_view line) { out_ += HeadedLine(id, line); });
  pipes_.push_back(std::move(p));
  return ends[1];
}

void OutputRelay::AddPollFds(std::vector<pollfd>* fds) const {
  for (const Pipe& p : pipes_) fds->push_back({p.fd.get(), POLLIN, 0});
}

void OutputRelay::Relay(const std::vector<pollfd>& fds, std::size_t first) {
  // Pipes are only added between polls, so fds[first + i] is pipes_[i]'s.
  std::vector<Pipe> open;
  for (std::size_t i = 0; i < pipes_.size(); ++i) {
    Pipe& p = pipes_[i];
    const bool ready = first + i < fds.size() && (fds[first + i].revents & (POLLIN | POLLHUP | POLLERR));
    if (!ready || ReadFrom(p) != 0) {
      open.push_back(std::move(p));
      continue;
    }
    p.lines->Finish();  // its descriptor closes as it is left out of open
  }
  pipes_ = std::move(open);
  WriteOut();
}

void OutputRelay::Drain() {
  for (Pipe& p : pipes_) {
    while (ReadFrom(p) > 0) {
    }
    p.lines->Finish();
  }
  pipes_.clear();
  WriteOut();
}

void OutputRelay::Abandon() {
  pipes_.clear();
  out_.clear();
}

int OutputRelay::ReadFrom(Pipe& p) {
  char buf[65536];
  ssize_t n;
  while ((n = ::read(p.fd.get(), buf, sizeof buf)) < 0 && errno == EINTR) {
  }
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return -1;
  if (n <= 0) return 0;
  p.lines->Feed(std::string_view(buf, static_cast<std::size_t>(n)));
  return 1;
}

void OutputRelay::WriteOut() {
  std::string_view text = out_;
  while (!text.empty()) {
    const ssize_t n = ::write(out_fd_, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // a closed stderr loses the text, not the workers
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  out_.clear();
}

}  // namespace fiber::backend
