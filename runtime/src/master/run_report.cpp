#include "master/run_report.hpp"

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "config/host_port.hpp"
#include "diagnostics/log.hpp"
#include "master/run_metrics.hpp"
#include "metrics/text_format.hpp"
#include "runs/control_protocol.hpp"
#include "runs/run_dir.hpp"

namespace fiber::master {

bool RunReport::Serve(zmq::context_t& context, const config::Settings& settings, std::string* err) {
  if (!settings.run_dir.empty()) {
    control_ = std::make_unique<ControlSocket>(context, [this] { return StatusJson(); },
                                               [this] { return RunStatusJson(Clock::now()); });
    std::string control_err;
    if (!control_->Bind(settings.run_dir, &control_err)) {
      log::Warning(control_err + "; fiber ps will not show this run's numbers");
      control_.reset();
    }
  }
  return settings.metrics.empty() || ServeMetrics(context, settings.metrics, err);
}

bool RunReport::ServeMetrics(zmq::context_t& context, const std::string& address, std::string* err) {
  std::string host;
  int port = 0;
  if (!config::ParseHostPort(address, &host, &port, err)) return false;
  metrics_ = std::make_unique<http::GetServer>(
      context, "/metrics",
      http::GetServer::Page{metrics::kTextContentType, [this] { return MetricsText(Clock::now()); }});
  if (!metrics_->Listen(host, port, err)) {
    *err = "metrics: " + *err;
    metrics_.reset();
    return false;
  }
  log::Info("serving metrics at http://" + metrics_->address() + "/metrics");
  return true;
}

std::size_t RunReport::PollItems(zmq::pollitem_t* items) {
  std::size_t count = 0;
  if (control_) items[count++] = {control_->handle(), -1, ZMQ_POLLIN, 0};
  if (metrics_) items[count++] = {metrics_->handle(), -1, ZMQ_POLLIN, 0};
  return count;
}

void RunReport::Answer(const zmq::pollitem_t* items, Clock::time_point now) {
  std::size_t i = 0;
  if (control_ && (items[i++].revents & ZMQ_POLLIN)) control_->Answer();
  if (metrics_ && (items[i++].revents & ZMQ_POLLIN)) metrics_->Serve(now);
}

// Only a master that ends normally gets here; fiber run writes the file
// only when it did not.
void RunReport::WriteFinal(const std::string& run_dir) const {
  if (!control_) return;
  std::string err;
  if (!runs::WriteWhole(runs::FinalNumbersPath(run_dir), RunStatusJson(Clock::now()), &err))
    log::Warning(err + "; fiber ps will not show this run's final numbers");
}

void RunReport::Tick(Clock::time_point now) {
  if (now - last_cpu_sample_ >= std::chrono::seconds(1)) {
    last_cpu_sample_ = now;
    cpu_.Sample(now);
  }
  if (metrics_) metrics_->Sweep(now);
}

void RunReport::PoolGone(wire::Channel channel, const PoolService& pool, Clock::time_point now) {
  gone_.Add(pool.Counters());
  finished_.emplace_back(channel, pool.TakeSnapshot(now));
  if (finished_.size() > runs::kMostPoolsInStatus) finished_.pop_front();
}

PoolService::Status RunReport::Totals() const {
  PoolService::Status total;
  total.tasks_done = gone_.tasks_done;
  total.tasks_failed = gone_.tasks_failed;
  for (const auto& [channel, pool] : pools_.all()) {
    const PoolService::Status s = pool->status();
    total.workers_wanted += s.workers_wanted;
    total.workers_ready += s.workers_ready;
    total.tasks_running += s.tasks_running;
    total.tasks_queued += s.tasks_queued;
    total.tasks_done += s.tasks_done;
    total.tasks_failed += s.tasks_failed;
  }
  return total;
}

std::string RunReport::StatusJson() const {
  const PoolService::Status total = Totals();
  return nlohmann::json{{"pid", ::getpid()},
                        {"manager_calls_via_master", requests_.manager_calls_forwarded()},
                        {"pools", pools_.size()},
                        {"workers_started", pools_.workers_started()},
                        {"workers_wanted", total.workers_wanted},
                        {"workers_ready", total.workers_ready},
                        {"tasks_running", total.tasks_running},
                        {"tasks_queued", total.tasks_queued},
                        {"tasks_done", total.tasks_done},
                        {"tasks_failed", total.tasks_failed}}
      .dump();
}

RunStatus::Pools RunReport::Snapshots(Clock::time_point now) const {
  RunStatus::Pools pools;
  pools.reserve(pools_.size());
  for (const auto& [channel, pool] : pools_.all()) pools.emplace_back(channel, pool->TakeSnapshot(now));
  return pools;
}

std::string RunReport::MetricsText(Clock::time_point now) const {
  RunStatus::Pools pools = Snapshots(now);
  pools.insert(pools.end(), finished_.begin(), finished_.end());
  return RunMetricsText(pools, pools_.workers_started());
}

std::string RunReport::RunStatusJson(Clock::time_point now) const {
  RunStatus status;
  status.pid = ::getpid();
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0) status.host = host;
  status.elapsed_seconds = std::chrono::duration<double>(now - started_).count();
  if (os::ReadProcessUsage(&status.master)) status.master_cpu_percent = cpu_.Percent(now, status.master);
  status.workers_started = pools_.workers_started();
  status.manager_calls_forwarded = requests_.manager_calls_forwarded();
  status.totals = Totals();
  status.gone = gone_;
  status.pools = Snapshots(now);
  status.finished.assign(finished_.begin(), finished_.end());
  return master::RunStatusJson(status);
}

}  // namespace fiber::master
