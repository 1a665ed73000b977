#include "master/run_status.hpp"

#include <charconv>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string_view>

#include "runs/control_protocol.hpp"

namespace fiber::master {

namespace {

void PutCounters(const PoolCounters& c, nlohmann::json& j) {
  j["tasks_submitted"] = c.tasks_submitted;
  j["tasks_done"] = c.tasks_done;
  j["tasks_failed"] = c.tasks_failed;
  j["tasks_retried"] = c.tasks_retried;
  j["items_submitted"] = c.items_submitted;
  j["items_done"] = c.items_done;
  j["workers_lost"] = c.workers_lost;
}

nlohmann::json Eta(const std::optional<double>& eta) { return eta ? nlohmann::json(*eta) : nlohmann::json(); }

nlohmann::json PoolJson(wire::Channel channel, const PoolService::Snapshot& p, bool finished) {
  nlohmann::json pool = {{"pool", channel}, {"finished", finished}, {"elapsed_seconds", p.elapsed_seconds}};
  PutCounters(p.counters, pool);
  pool["workers_started"] = p.counters.workers_started;
  pool["tasks_running"] = p.status.tasks_running;
  pool["tasks_queued"] = p.status.tasks_queued;
  pool["workers_wanted"] = p.status.workers_wanted;
  pool["workers_ready"] = p.status.workers_ready;
  pool["rate_now"] = finished ? 0.0 : p.rate_now;
  pool["rate_average"] = p.rate_average;
  pool["eta_seconds"] = Eta(p.eta_seconds);
  const TaskDurations& d = p.counters.durations;
  pool["task_seconds"] = {
      {"bounds", kTaskSecondsBounds}, {"buckets", d.buckets}, {"sum", d.sum_seconds}, {"count", d.count}};
  return pool;
}

void AppendString(std::string_view text, std::string* out) {
  out->push_back('"');
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
      out->append(escaped);
    } else {
      out->push_back(c);
    }
  }
  out->push_back('"');
}

void Append(std::string_view text, std::string* out) { AppendString(text, out); }

template <class Number>
void Append(Number n, std::string* out) {
  char text[32];
  out->append(text, std::to_chars(text, text + sizeof text, n).ptr);
}

// ,"key":value
template <class Value>
void AppendField(const char* key, const Value& value, std::string* out) {
  out->append(",\"").append(key).append("\":");
  Append(value, out);
}

// One worker's object, as the protocol lays it out.
void AppendWorker(wire::Channel channel, const PoolService::WorkerSnapshot& w, std::string* out) {
  if (!out->empty()) out->push_back(',');
  out->append("{\"id\":");
  AppendString(w.id, out);
  AppendField("pool", channel, out);
  AppendField("pid", w.pid, out);
  AppendField("state", std::string_view(w.state), out);
  AppendField("task", std::string_view(w.task), out);
  AppendField("task_seconds", w.task_seconds, out);
  AppendField("tasks_done", w.tasks_done, out);
  AppendField("ended", std::string_view(w.ended), out);
  out->push_back('}');
}

}  // namespace

std::string RunStatusJson(const RunStatus& s) {
  PoolCounters total = s.gone;
  nlohmann::json pools = nlohmann::json::array();
  std::string workers;  // thousands of them: written here, not as a tree
  std::size_t workers_total = 0;
  for (const RunStatus::Pools* list : {&s.pools, &s.finished}) {
    const bool finished = list == &s.finished;
    for (const auto& [channel, p] : *list) {
      if (!finished) total.Add(p.counters);
      if (pools.size() < runs::kMostPoolsInStatus) pools.push_back(PoolJson(channel, p, finished));
      for (const PoolService::WorkerSnapshot& w : p.workers)
        if (++workers_total <= runs::kMostWorkersInStatus) AppendWorker(channel, w, &workers);
    }
  }
  nlohmann::json j = {{"version", runs::kRunStatusVersion},
                      {"pid", s.pid},
                      {"host", s.host},
                      {"elapsed_seconds", s.elapsed_seconds},
                      {"master",
                       {{"cpu_seconds", s.master.cpu_seconds},
                        {"cpu_percent", s.master_cpu_percent},
                        {"rss_bytes", s.master.rss_bytes}}},
                      {"manager_calls_via_master", s.manager_calls_forwarded},
                      {"workers_started", s.workers_started},
                      {"workers_wanted", s.totals.workers_wanted},
                      {"workers_ready", s.totals.workers_ready},
                      {"tasks_running", s.totals.tasks_running},
                      {"tasks_queued", s.totals.tasks_queued}};
  PutCounters(total, j);
  j["pools"] = std::move(pools);
  j["pools_total"] = s.pools.size() + s.finished.size();
  j["workers_total"] = workers_total;
  std::string text = j.dump();
  text.pop_back();  // its closing brace
  text += ",\"workers\":[" + workers + "]}";
  return text;
}

}  // namespace fiber::master
