#include "backend/container/container_output.hpp"

#include "backend/worker_output.hpp"
#include "os/background_thread.hpp"

namespace fiber::backend {

namespace {
// How much of the output last_output keeps.
constexpr std::size_t kLastBytes = 4096;
}  // namespace

std::unique_ptr<ContainerOutput> ContainerOutput::Attach(const engine::Client& engine,
                                                         const std::string& id,
                                                         const std::string& worker_id,
                                                         const std::string& log_file,
                                                         std::string* err) {
  std::unique_ptr<ContainerOutput> out(new ContainerOutput);
  ContainerOutput* self = out.get();
  out->thread_ = StartBackgroundThread(
      [self, engine, id, worker_id, log_file] { self->Follow(engine, id, worker_id, log_file); },
      [self](const std::string& what) {
        std::lock_guard<std::mutex> lock(self->mu_);
        if (self->state_ == State::kAttaching) self->error_ = "an internal error (" + what + ")";
        self->state_ = State::kEnded;
        self->changed_.notify_all();
      });
  std::unique_lock<std::mutex> lock(out->mu_);
  const bool answered = out->changed_.wait_for(lock, std::chrono::milliseconds(engine::kLongCallMs),
                                               [&] { return out->state_ != State::kAttaching; });
  if (answered && out->state_ == State::kAttached) return out;
  *err = answered ? out->error_ : "the engine did not attach to the container in time";
  lock.unlock();
  return nullptr;  // the destructor stops the thread
}

ContainerOutput::~ContainerOutput() {
  cancel_ = true;
  if (thread_.joinable()) thread_.join();
}

void ContainerOutput::Follow(engine::Client engine, std::string id, std::string worker_id,
                             std::string log_file) {
  WorkerOutput sink(std::move(worker_id), log_file);
  std::string err;
  const bool ok = engine.Attach(
      id,
      [this] {
        std::lock_guard<std::mutex> lock(mu_);
        state_ = State::kAttached;
        changed_.notify_all();
      },
      [&](std::string_view text) {
        sink.Write(text);
        std::lock_guard<std::mutex> lock(mu_);
        last_.append(text);
        if (last_.size() > 2 * kLastBytes) last_.erase(0, last_.size() - kLastBytes);
      },
      &cancel_, &err);
  sink.Finish();
  std::lock_guard<std::mutex> lock(mu_);
  if (state_ == State::kAttaching) error_ = ok ? "the engine ended the attach at once" : err;
  state_ = State::kEnded;
  changed_.notify_all();
}

bool ContainerOutput::ended() const {
  std::lock_guard<std::mutex> lock(mu_);
  return state_ == State::kEnded;
}

bool ContainerOutput::WaitEnded(std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(mu_);
  return changed_.wait_for(lock, timeout, [&] { return state_ == State::kEnded; });
}

std::string ContainerOutput::last_output() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_.size() > kLastBytes ? last_.substr(last_.size() - kLastBytes) : last_;
}

}  // namespace fiber::backend
