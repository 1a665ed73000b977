#include "backend/request_queue.hpp"

#include <algorithm>
#include <utility>

#include "diagnostics/log.hpp"
#include "os/background_thread.hpp"
#include "os/mutex.hpp"

namespace fiber::backend {

RequestQueue::RequestQueue(int threads, Clock::duration pace, std::string what)
    : pace_(pace), what_(std::move(what)) {
  loop_.Start([this] { Serve(); }, [this](const std::string& error) {
    log::Warning("a thread " + what_ + " ended: " + error);
  }, threads);
}

void RequestQueue::Post(const std::string& worker_id, Request request) {
  Post(worker_id, std::move(request), When{});
}

void RequestQueue::Post(const std::string& worker_id, Request request, When when) {
  {
    os::MutexLock lock(loop_.mu());
    auto& mine = waiting_[worker_id];
    mine.emplace_back(std::move(request), when);
    if (mine.size() == 1 && !running_.count(worker_id)) ready_.push_back(worker_id);
  }
  loop_.Notify();
}

bool RequestQueue::Drop(const std::string& worker_id) {
  os::MutexLock lock(loop_.mu());
  if (!waiting_.erase(worker_id)) return false;
  std::erase(ready_, worker_id);
  loop_.Notify();  // WaitIdle may hold now
  return true;
}

bool RequestQueue::Busy(const std::string& worker_id) const {
  os::MutexLock lock(loop_.mu());
  return waiting_.count(worker_id) || running_.count(worker_id);
}

bool RequestQueue::WaitIdle(Clock::time_point deadline) {
  os::MutexLock lock(loop_.mu());
  const auto idle = [this]() FIBER_REQUIRES(loop_.mu()) { return waiting_.empty() && running_.empty(); };
  loop_.WaitUntil(lock, deadline, idle);
  return idle();
}

void RequestQueue::Stop() {
  {
    os::MutexLock lock(loop_.mu());
    waiting_.clear();
    ready_.clear();
  }
  loop_.Stop();
}

void RequestQueue::Serve() {
  os::MutexLock lock(loop_.mu());
  for (;;) {
    loop_.Wait(lock, [this]() FIBER_REQUIRES(loop_.mu()) { return !ready_.empty(); });
    if (loop_.stopping()) return;
    const When& when = waiting_.at(ready_.front()).front().second;
    if (const auto start = when.paced ? next_start_ : when.at; Clock::now() < start) {
      if (loop_.SleepUntil(lock, start)) return;
      continue;  // another thread may have taken it meanwhile
    }
    const std::string worker_id = std::move(ready_.front());
    ready_.pop_front();
    const auto mine = waiting_.find(worker_id);
    Request request = std::move(mine->second.front().first);
    mine->second.pop_front();
    if (mine->second.empty()) waiting_.erase(mine);
    running_.insert(worker_id);
    next_start_ = Clock::now() + pace_;
    lock.Unlock();
    try {
      request();
    } catch (...) {
      // The request's own answer is lost; the thread serves the others.
      ReportEscaped([this](const std::string& error) { log::Warning("a request " + what_ + " failed: " + error); });
    }
    request = nullptr;  // what it holds goes before the next, not after
    lock.Lock();
    running_.erase(worker_id);
    if (waiting_.count(worker_id)) ready_.push_front(worker_id);
    loop_.Notify();
  }
}

}  // namespace fiber::backend
