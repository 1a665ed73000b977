#include "progress_line.hpp"

#include <cstdio>

#include "os/descriptor.hpp"

namespace fiber::cli {

namespace {

// Over how long the rate is measured: long enough to smooth a map's
// chunks, short enough to follow a change.
constexpr auto kRateWindow = std::chrono::seconds(5);
constexpr auto kAskEvery = std::chrono::milliseconds(250);

long long Number(const nlohmann::json& status, const char* key) {
  const auto it = status.find(key);
  return it != status.end() && it->is_number() ? it->get<long long>() : 0;
}

}  // namespace

std::string ProgressText(const nlohmann::json& status, double per_second) {
  const long long done = Number(status, "tasks_done"), failed = Number(status, "tasks_failed");
  const long long total = done + failed + Number(status, "tasks_running") + Number(status, "tasks_queued");
  std::string line = "fiber: workers ready " + std::to_string(Number(status, "workers_ready")) + "/" +
                     std::to_string(Number(status, "workers_wanted")) + ", tasks done " + std::to_string(done) +
                     "/" + std::to_string(total);
  if (failed > 0) line += " (" + std::to_string(failed) + " failed)";
  if (per_second >= 0) {
    char rate[32];
    std::snprintf(rate, sizeof rate, per_second < 10 ? "%.1f" : "%.0f", per_second);
    line += std::string(", ") + rate + " tasks/s";
  }
  return line;
}

double ProgressLine::Rate(Clock::time_point now, double done) {
  done_.emplace_back(now, done);
  while (done_.size() > 2 && now - done_[1].first >= kRateWindow) done_.pop_front();
  const auto span = std::chrono::duration<double>(now - done_.front().first).count();
  if (span < 1) return -1;
  return (done - done_.front().second) / span;
}

void ProgressLine::Show() {
  if (!on_) return;
  const auto now = Clock::now();
  if (now - asked_ >= kAskEvery) {
    asked_ = now;
    nlohmann::json status;
    if (query_(&status) && status.is_object()) {
      const std::string line = ProgressText(status, Rate(now, static_cast<double>(Number(status, "tasks_done"))));
      if (line != line_) Clear();
      line_ = line;
    }
  }
  if (shown_ || line_.empty() || !line_start_) return;
  os::WriteAll(2, line_);
  shown_ = true;
}

void ProgressLine::Clear() {
  if (!shown_) return;
  os::WriteAll(2, "\r\033[K");
  shown_ = false;
}

void ProgressLine::Wrote(std::string_view text) {
  if (!text.empty()) line_start_ = text.back() == '\n';
}

}  // namespace fiber::cli
