#include "backend/container/container_events.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "backend/labels.hpp"
#include "engine/engine_streams.hpp"

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

ContainerEvents::ContainerEvents(engine::Client engine, std::string run_id)
    : watch_([engine = std::move(engine), run_id = std::move(run_id), since = NowNanos()](
                 EngineWatch<Seen>& watch, std::string* err) mutable {
        return Follow(engine, run_id, &since, watch, err);
      }, WatchPace{}) {}

bool ContainerEvents::Follow(const engine::Client& engine, const std::string& run_id, long long* since,
                             EngineWatch<Seen>& watch, std::string* err) {
  const auto on_event = [&](const nlohmann::json& event) {
    const std::string action = event.value("Action", "");
    const nlohmann::json actor = event.value("Actor", nlohmann::json::object());
    const std::string id = actor.value("ID", "");
    *since = std::max(*since, event.value("timeNano", 0LL));
    const nlohmann::json attributes = actor.value("Attributes", nlohmann::json::object());
    // A string, as every attribute is.
    const auto code = attributes.find("exitCode");
    const long exit_code =
        code != attributes.end() && code->is_string() ? std::strtol(code->get<std::string>().c_str(), nullptr, 10) : -1;
    watch.Heard([&](Seen& seen) {
      if (action == "oom") seen.oom_killed.insert(id);
      if (action == "die") seen.ended[id] = End{exit_code, seen.oom_killed.erase(id) > 0};
    });
  };
  if (engine::ContainerEvents(engine, {LabelIs(kRunLabel, run_id)}, Since(*since), on_event, &watch.stopping(), err))
    *err = "the engine ended its event stream";
  return false;
}

std::optional<ContainerEvents::End> ContainerEvents::EndOf(const std::string& id) const {
  return watch_.Read([&](const Seen& seen, const std::string&) -> std::optional<End> {
    const auto it = seen.ended.find(id);
    if (it == seen.ended.end()) return std::nullopt;
    return it->second;
  });
}

void ContainerEvents::Forget(const std::string& id) {
  watch_.Change([&](Seen& seen) { seen.ended.erase(id); });
}

std::string ContainerEvents::error() const { return watch_.error(); }

}  // namespace fiber::backend
