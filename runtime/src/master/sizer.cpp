#include "master/sizer.hpp"

#include <algorithm>

namespace fiber::master {

bool Sizer::Grow(std::size_t pending, int live, int starting) {
  if (!elastic_) return false;
  // Each starting worker will take at least one waiting task.
  const int waiting = static_cast<int>(pending) - starting;
  if (waiting <= 0) return false;
  target_ = std::min(elastic_->max, std::max(target_, live + waiting));
  return true;
}

int Sizer::ToStart(int live, int starting, int max_starting) const {
  return std::max(0, std::min(target_ - live, max_starting - starting));
}

std::optional<std::chrono::steady_clock::time_point> Sizer::IdleCutoff(
    std::chrono::steady_clock::time_point now) const {
  if (!elastic_) return std::nullopt;
  return now - elastic_->idle_timeout;
}

int Sizer::RetireIdle(int live, int idle) {
  if (!elastic_) return 0;
  const int retire = std::max(0, std::min(idle, live - elastic_->min));
  target_ = std::max(elastic_->min, std::min(target_, live - retire));
  return retire;
}

bool Sizer::GivesUp() const { return start_failures_ > std::max(3, 2 * target_); }

}  // namespace fiber::master
