#include "backend/container/container_events.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "backend/labels.hpp"
#include "os/background_thread.hpp"

namespace fiber::backend {

namespace {

// "1700000000.123456789", as the events endpoint takes `since`.
std::string Since(long long nanos) {
  char text[40];
  std::snprintf(text, sizeof text, "%lld.%09lld", nanos / 1000000000, nanos % 1000000000);
  return text;
}

long long NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

ContainerEvents::ContainerEvents(engine::Client engine, std::string run_id) {
  thread_ = StartBackgroundThread(
      [this, engine = std::move(engine), run_id = std::move(run_id)] { Follow(engine, run_id); },
      [this](const std::string& what) {
        std::lock_guard<std::mutex> lock(mu_);
        error_ = "an internal error (" + what + ")";
      });
}

ContainerEvents::~ContainerEvents() {
  stop_ = true;
  thread_.join();
}

void ContainerEvents::Follow(engine::Client engine, std::string run_id) {
  long long since = NowNanos();
  const auto on_event = [&](const nlohmann::json& event) {
    const std::string action = event.value("Action", "");
    const nlohmann::json actor = event.value("Actor", nlohmann::json::object());
    const std::string id = actor.value("ID", "");
    since = std::max(since, event.value("timeNano", 0LL));
    std::lock_guard<std::mutex> lock(mu_);
    error_.clear();
    if (action == "oom") oom_killed_.insert(id);
    if (action != "die") return;
    const nlohmann::json attributes = actor.value("Attributes", nlohmann::json::object());
    End end;
    // A string, as every attribute is.
    const auto code = attributes.find("exitCode");
    end.exit_code = code != attributes.end() && code->is_string()
                        ? std::strtol(code->get<std::string>().c_str(), nullptr, 10)
                        : -1;
    end.oom_killed = oom_killed_.erase(id) > 0;
    ended_[id] = end;
  };
  while (!stop_) {
    std::string err;
    if (engine.ContainerEvents({LabelIs(kRunLabel, run_id)}, Since(since), on_event, &stop_, &err))
      err = "the engine ended its event stream";
    if (stop_) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      error_ = err;
    }
    for (int i = 0; i < 10 && !stop_; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

std::optional<ContainerEvents::End> ContainerEvents::EndOf(const std::string& id) const {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = ended_.find(id);
  if (it == ended_.end()) return std::nullopt;
  return it->second;
}

void ContainerEvents::Forget(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  ended_.erase(id);
}

std::string ContainerEvents::error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

}  // namespace fiber::backend
