// fiber ps [-a] [--json]: the runs of this user, from their records and
// processes, with live numbers from each running master.
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "control_client.hpp"
#include "run_store.hpp"

namespace fiber::cli {

namespace {

std::string Age(long long created) {
  const long long now = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
  const long long s = std::max(0LL, now - created);
  if (s < 120) return std::to_string(s) + "s";
  if (s < 7200) return std::to_string(s / 60) + "m";
  if (s < 172800) return std::to_string(s / 3600) + "h";
  return std::to_string(s / 86400) + "d";
}

nlohmann::json Describe(ControlClient& control, const RunRecord& r) {
  const RunState state = RunStore::StateOf(r);
  nlohmann::json j = {{"id", r.id},       {"name", r.name},   {"backend", r.backend},
                      {"state", to_string(state)}, {"program", r.program}, {"created", r.created},
                      {"age", Age(r.created)},     {"exit_status", nullptr},
                      {"workers_ready", nullptr},  {"workers_wanted", nullptr},
                      {"tasks_running", nullptr},  {"tasks_queued", nullptr}};
  if (r.exit_status) j["exit_status"] = *r.exit_status;
  nlohmann::json status;
  std::string err;
  if (state == RunState::kRunning && control.Query(r.dir, &status, &err)) {
    for (const char* key : {"workers_ready", "workers_wanted", "tasks_running", "tasks_queued"})
      if (status.contains(key)) j[key] = status[key];
  }
  return j;
}

std::string Cell(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.is_null()) return "-";
  return a.dump() + "/" + (b.is_null() ? std::string("-") : b.dump());
}

int Ps(bool all, bool json) {
  RunStore store(RunsRoot());
  ControlClient control;
  nlohmann::json rows = nlohmann::json::array();
  for (const RunRecord& r : store.List()) {
    nlohmann::json row = Describe(control, r);
    if (all || row["state"] == "running") rows.push_back(std::move(row));
  }
  if (json) {
    std::printf("%s\n", rows.dump(2).c_str());
    return 0;
  }
  std::printf("%-12s  %-16s  %-8s  %-12s  %-9s  %-9s  %-5s  %s\n", "RUN ID", "NAME", "BACKEND",
              "STATE", "WORKERS", "TASKS", "AGE", "EXIT");
  for (const auto& row : rows) {
    const std::string name = row["name"].get<std::string>().substr(0, 16);
    std::printf("%-12s  %-16s  %-8s  %-12s  %-9s  %-9s  %-5s  %s\n",
                row["id"].get<std::string>().c_str(), name.c_str(),
                row["backend"].get<std::string>().c_str(), row["state"].get<std::string>().c_str(),
                Cell(row["workers_ready"], row["workers_wanted"]).c_str(),
                Cell(row["tasks_running"], row["tasks_queued"]).c_str(),
                row["age"].get<std::string>().c_str(),
                row["exit_status"].is_null() ? "" : row["exit_status"].dump().c_str());
  }
  return 0;
}

}  // namespace

void AddPsCommand(CLI::App& app, int* status) {
  auto all = std::make_shared<bool>(false);
  auto json = std::make_shared<bool>(false);
  CLI::App* ps = app.add_subcommand("ps", "list runs and their workers");
  ps->add_flag("-a,--all", *all, "also runs that have ended");
  ps->add_flag("--json", *json, "a JSON array, for scripts");
  ps->callback([=] { *status = Ps(*all, *json); });
}

}  // namespace fiber::cli
