#include "top_view.hpp"

#include <algorithm>
#include <cstdio>
#include <string_view>

namespace fiber::cli {

const char* to_string(WorkerOrder order) {
  switch (order) {
    case WorkerOrder::kId: return "id";
    case WorkerOrder::kState: return "state";
    case WorkerOrder::kTaskTime: return "task time";
    case WorkerOrder::kDone: return "done";
  }
  return "id";
}

std::string Elapsed(long long s) {
  char text[48];
  if (s >= 3600)
    std::snprintf(text, sizeof text, "%lldh %02lldm %02llds", s / 3600, s / 60 % 60, s % 60);
  else if (s >= 60)
    std::snprintf(text, sizeof text, "%lldm %02llds", s / 60, s % 60);
  else
    std::snprintf(text, sizeof text, "%llds", s);
  return text;
}

namespace {

std::string Format(const char* format, auto... args) {
  char text[512];
  std::snprintf(text, sizeof text, format, args...);
  return text;
}

// A number field as text: "-" when missing or null.
std::string NumberText(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return "-";
  if (j[key].is_number_float()) return Format("%.1f", j[key].get<double>());
  return j[key].dump();
}

// "0.30s", "12.4s", "3m 05s".
std::string Seconds(double s) {
  if (s < 60) return Format(s < 10 ? "%.2fs" : "%.1fs", s);
  return Elapsed(static_cast<long long>(s));
}

// Worker numbers like w12 sort after w9.
long WorkerNumber(const nlohmann::json& w) {
  const std::string id = w.value("id", "");
  return id.size() > 1 && id[0] == 'w' ? std::atol(id.c_str() + 1) : -1;
}

// Busy and pending first: what a user looks at.
int StateRank(const std::string& state) {
  static constexpr std::string_view kRanks[] = {"busy", "pending", "starting", "ready", "retiring", "lost"};
  for (int i = 0; i < static_cast<int>(std::size(kRanks)); ++i)
    if (state == kRanks[i]) return i;
  return static_cast<int>(std::size(kRanks));
}

// A task without its registered names' places: "square@sq.cpp:23 (item
// 4)" as "square (item 4)".
std::string ShortTask(std::string task) {
  for (std::size_t at; (at = task.find('@')) != std::string::npos;) {
    const std::size_t end = task.find(" (", at);
    task.erase(at, end == std::string::npos ? std::string::npos : end - at);
  }
  return task;
}

std::string Cut(std::string text, std::size_t width) {
  if (text.size() > width) text = text.substr(0, width - 1) + "~";
  return text;
}

}  // namespace

std::string RunLine(const nlohmann::json& run) {
  std::string line = "RUN " + run.value("id", "") + "  " + run.value("name", "") + " (" +
                     run.value("backend", "") + ")  " + run.value("state", "");
  if (run.contains("elapsed") && run["elapsed"].is_number()) line += "  " + Elapsed(run["elapsed"].get<long long>());
  if (run.contains("master") && run["master"].is_object()) {
    const nlohmann::json& m = run["master"];
    line += Format("  master pid %s on %s: cpu %.1f%%, %.1f MiB", NumberText(run, "pid").c_str(),
                   run.value("host", "?").c_str(), m.value("cpu_percent", 0.0),
                   static_cast<double>(m.value("rss_bytes", std::uint64_t{0})) / (1 << 20));
  }
  return line;
}

std::vector<std::string> PoolLines(const nlohmann::json& run) {
  std::vector<std::string> lines;
  if (!run.contains("pools") || !run["pools"].is_array() || run["pools"].empty()) return lines;
  lines.push_back(Format("%-5s %-9s %8s %7s %7s %7s %7s %8s %8s %9s", "POOL", "WORKERS", "DONE", "FAILED",
                         "RETRIED", "RUNNING", "QUEUED", "RATE/S", "AVG/S", "ETA"));
  for (const auto& p : run["pools"]) {
    const std::string workers = NumberText(p, "workers_ready") + "/" + NumberText(p, "workers_wanted");
    const std::string eta = p.contains("eta_seconds") && p["eta_seconds"].is_number()
                                ? Seconds(p["eta_seconds"].get<double>())
                                : "-";
    lines.push_back(Format("%-5s %-9s %8s %7s %7s %7s %7s %8.1f %8.1f %9s%s", NumberText(p, "pool").c_str(),
                           workers.c_str(), NumberText(p, "tasks_done").c_str(), NumberText(p, "tasks_failed").c_str(),
                           NumberText(p, "tasks_retried").c_str(), NumberText(p, "tasks_running").c_str(),
                           NumberText(p, "tasks_queued").c_str(), p.value("rate_now", 0.0),
                           p.value("rate_average", 0.0), eta.c_str(),
                           p.value("finished", false) ? "  (finished)" : ""));
  }
  if (run.value("pools_total", run["pools"].size()) > run["pools"].size())
    lines.push_back(Format("(and %zu more pools)", run.value("pools_total", std::size_t{0}) - run["pools"].size()));
  return lines;
}

std::vector<std::string> WorkerLines(const nlohmann::json& run, WorkerOrder order, std::size_t most) {
  std::vector<std::string> lines;
  if (run.contains("note") && run["note"].is_string()) lines.push_back("note: " + run["note"].get<std::string>());
  if (!run.contains("workers") || !run["workers"].is_array() || run["workers"].empty()) return lines;
  std::vector<const nlohmann::json*> workers;
  for (const auto& w : run["workers"]) workers.push_back(&w);
  const auto by_id = [](const nlohmann::json* a, const nlohmann::json* b) { return WorkerNumber(*a) < WorkerNumber(*b); };
  std::stable_sort(workers.begin(), workers.end(), by_id);
  switch (order) {
    case WorkerOrder::kId: break;
    case WorkerOrder::kState:
      std::stable_sort(workers.begin(), workers.end(), [](auto a, auto b) {
        return StateRank(a->value("state", "")) < StateRank(b->value("state", ""));
      });
      break;
    case WorkerOrder::kTaskTime:
      std::stable_sort(workers.begin(), workers.end(), [](auto a, auto b) {
        return a->value("task_seconds", 0.0) > b->value("task_seconds", 0.0);
      });
      break;
    case WorkerOrder::kDone:
      std::stable_sort(workers.begin(), workers.end(), [](auto a, auto b) {
        return a->value("tasks_done", std::uint64_t{0}) > b->value("tasks_done", std::uint64_t{0});
      });
      break;
  }
  lines.push_back(Format("%-8s %-4s %-8s %-20s %-12s %-9s %-28s %8s %6s  %s", "WORKER", "POOL", "PID", "WHERE", "NODE",
                         "STATE", "TASK", "FOR", "DONE", "ENDED / WAITING"));
  for (std::size_t i = 0; i < workers.size() && i < most; ++i) {
    const nlohmann::json& w = *workers[i];
    const std::string task = ShortTask(w.value("task", ""));
    const bool holds = !task.empty();
    const std::string why = !w.value("ended", "").empty() ? w.value("ended", "") : w.value("waiting", "");
    const long pid = w.value("pid", 0L);
    const std::string node = w.value("node", "");
    lines.push_back(Format("%-8s %-4s %-8s %-20s %-12s %-9s %-28s %8s %6s  %s", w.value("id", "").c_str(),
                           NumberText(w, "pool").c_str(), pid > 0 ? std::to_string(pid).c_str() : "-",
                           Cut(w.value("where", ""), 20).c_str(), node.empty() ? "-" : Cut(node, 12).c_str(),
                           w.value("state", "").c_str(),
                           holds ? Cut(task, 28).c_str() : "-",
                           holds ? Seconds(w.value("task_seconds", 0.0)).c_str() : "-",
                           NumberText(w, "tasks_done").c_str(), why.c_str()));
  }
  const std::size_t total = run.value("workers_total", workers.size());
  if (total > std::min(most, workers.size()))
    lines.push_back(Format("(and %zu more workers)", total - std::min(most, workers.size())));
  return lines;
}

}  // namespace fiber::cli
