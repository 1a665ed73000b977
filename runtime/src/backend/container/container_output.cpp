#include "backend/container/container_output.hpp"

#include "engine/engine_streams.hpp"
#include "os/mutex.hpp"

namespace fiber::backend {

namespace {
// How much of the output last_output keeps.
constexpr std::size_t kLastBytes = 4096;
}  // namespace

std::unique_ptr<ContainerOutput> ContainerOutput::Attach(http::StreamSet& streams, const engine::Client& engine,
                                                         const std::string& id, const std::string& worker_id,
                                                         const std::string& log_file, std::string* err) {
  std::unique_ptr<ContainerOutput> out(new ContainerOutput(streams, worker_id, log_file));
  ContainerOutput* self = out.get();
  out->stream_ = engine::Attach(engine,
      streams, id, [self] { self->Attached(); }, [self](std::string_view text) { self->Output(text); },
      [self](const std::string& why) { self->Ended(why); });
  os::MutexLock lock(out->mu_);
  const bool answered = lock.WaitFor(out->changed_, std::chrono::milliseconds(engine::kLongCallMs),
                                    [&]() FIBER_REQUIRES(out->mu_) { return out->state_ != State::kAttaching; });
  if (answered && out->state_ == State::kAttached) return out;
  *err = answered ? out->error_ : "the engine did not attach to the container in time";
  lock.Unlock();
  return nullptr;  // the destructor ends the stream
}

ContainerOutput::~ContainerOutput() { streams_.Cancel(stream_); }

void ContainerOutput::Attached() {
  os::MutexLock lock(mu_);
  state_ = State::kAttached;
  changed_.notify_all();
}

void ContainerOutput::Output(std::string_view text) {
  sink_.Write(text);
  os::MutexLock lock(mu_);
  last_.append(text);
  if (last_.size() > 2 * kLastBytes) last_.erase(0, last_.size() - kLastBytes);
}

void ContainerOutput::Ended(const std::string& err) {
  sink_.Finish();
  os::MutexLock lock(mu_);
  if (state_ == State::kAttaching) error_ = err.empty() ? "the engine ended the attach at once" : err;
  state_ = State::kEnded;
  changed_.notify_all();
}

bool ContainerOutput::ended() const {
  os::MutexLock lock(mu_);
  return state_ == State::kEnded;
}

bool ContainerOutput::WaitEnded(std::chrono::milliseconds timeout) const {
  os::MutexLock lock(mu_);
  return lock.WaitFor(changed_, timeout, [&]() FIBER_REQUIRES(mu_) { return state_ == State::kEnded; });
}

std::string ContainerOutput::last_output() const {
  os::MutexLock lock(mu_);
  return last_.size() > kLastBytes ? last_.substr(last_.size() - kLastBytes) : last_;
}

}  // namespace fiber::backend
