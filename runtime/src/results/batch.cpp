#include "fiber/detail/batch.hpp"

#include "diagnostics/hop_trace.hpp"
#include "fiber/errors.hpp"

namespace fiber::detail {

void throw_outcome(const Outcome& outcome) {
  switch (outcome.kind) {
    case Outcome::Kind::kRemoteError: throw RemoteError(outcome.error_type, outcome.data);
    case Outcome::Kind::kWorkerLost: throw WorkerLost(outcome.data);
    case Outcome::Kind::kNotRegistered: throw NotRegistered(outcome.data);
    case Outcome::Kind::kPoolClosed: throw PoolClosed(outcome.data);
    case Outcome::Kind::kTimeout: throw TimeoutError(outcome.data);
    case Outcome::Kind::kValue: break;
  }
  throw Error("internal error: a successful outcome was thrown");
}

void throw_undecodable(const char* why) {
  throw Error(std::string("a task's result does not decode as the type the caller expects (") +
              why + "); are master and workers the same build?");
}

Batch::Batch(std::size_t size) : slots_(size), done_(size, false) {
  completion_order_.reserve(size);
}

void Batch::complete(std::size_t first, std::vector<Outcome>&& outcomes) {
  std::function<void()> ready;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (std::size_t i = 0; i < outcomes.size() && first + i < slots_.size(); ++i) {
      if (done_[first + i]) continue;
      slots_[first + i] = std::move(outcomes[i]);
      done_[first + i] = true;
      completion_order_.push_back(first + i);
    }
    if (completion_order_.size() == slots_.size()) ready.swap(on_ready_);
  }
  cv_.notify_all();
  if (ready) ready();
}

void Batch::on_ready(std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (completion_order_.size() != slots_.size()) {
      on_ready_ = std::move(fn);
      return;
    }
  }
  fn();
}

bool Batch::wait_for_condition(std::unique_lock<std::mutex>& lock,
                               const Deadline& deadline,
                               const std::function<bool()>& done) {
  if (!deadline) {
    cv_.wait(lock, done);
    return true;
  }
  return cv_.wait_until(lock, *deadline, done);
}

bool Batch::wait_slot(std::size_t i, const Deadline& deadline) {
  if (before_wait_) before_wait_();
  std::unique_lock<std::mutex> lock(mu_);
  return wait_for_condition(lock, deadline, [&] { return bool(done_[i]); });
}

bool Batch::wait_completed(std::size_t k, std::size_t* index, const Deadline& deadline) {
  if (before_wait_) before_wait_();
  std::unique_lock<std::mutex> lock(mu_);
  if (!wait_for_condition(lock, deadline, [&] { return completion_order_.size() > k; }))
    return false;
  *index = completion_order_[k];
  return true;
}

bool Batch::wait_all(const Deadline& deadline) {
  if (before_wait_) before_wait_();
  std::unique_lock<std::mutex> lock(mu_);
  const bool done = wait_for_condition(lock, deadline,
                                       [&] { return completion_order_.size() == slots_.size(); });
  FIBER_HOP("user-woke");
  return done;
}

bool Batch::ready() const {
  std::lock_guard<std::mutex> lock(mu_);
  return completion_order_.size() == slots_.size();
}

}  // namespace fiber::detail
