#include "backend/container/container_backend.hpp"

#include <algorithm>
#include <csignal>
#include <utility>

#include "backend/master_reach.hpp"
#include "config/backend_names.hpp"
#include "config/quantities.hpp"
#include "diagnostics/log.hpp"
#include "os/mutex.hpp"

namespace fiber::backend {

namespace {

// How long KillAll waits for killed containers to stop.
constexpr auto kStopWait = std::chrono::seconds(10);
// How long a container's end waits for the other half of its news (the end
// of its output, or its die event) before it is reported without it.
constexpr auto kEndGrace = std::chrono::seconds(5);
// Containers created and started at once: the engine serves several
// together, and a burst of workers is not one request after another.
constexpr int kStartThreads = 4;
// How much of a failed container's output its exit shows.
constexpr int kLastLines = 5;
constexpr std::size_t kLastOutputBytes = 600;

// The last n lines of output.
std::string LastLines(const std::string& output, int n) {
  std::size_t at = output.size();
  if (at > 0 && output[at - 1] == '\n') --at;
  for (int i = 0; i < n && at != std::string::npos && at > 0; ++i) at = output.rfind('\n', at - 1);
  return at == std::string::npos || at == 0 ? output : output.substr(at + 1);
}

// Output as one line: its lines joined by " | ", the end kept when long.
std::string OneLine(const std::string& output) {
  std::string line;
  for (char ch : output) {
    if (ch == '\r') continue;
    line += ch == '\n' ? std::string(" | ") : std::string(1, ch);
  }
  while (line.size() >= 3 && line.compare(line.size() - 3, 3, " | ") == 0) line.resize(line.size() - 3);
  if (line.size() > kLastOutputBytes) line = "..." + line.substr(line.size() - kLastOutputBytes);
  return line;
}

}  // namespace

std::unique_ptr<Backend> ContainerBackend::Make(const config::Settings& settings) {
  return std::make_unique<ContainerBackend>(config::EngineOf(settings.backend, settings.engine), settings);
}

ContainerBackend::ContainerBackend(std::string engine, config::Settings settings)
    : engine_(std::move(engine)), settings_(std::move(settings)) {}

ContainerBackend::~ContainerBackend() {
  KillAll();
  starts_.reset();
  events_.reset();
}

bool ContainerBackend::Connect(const std::string& run_id, std::string* err) {
  os::MutexLock lock(connect_mu_);
  if (!client_ && connect_error_.empty()) {
    engine::Client client;
    if (engine::Client::Connect(engine_, config::ProcessEnvironment, &client, &connect_error_,
                                engine::kLongCallMs)) {
      client_ = std::move(client);
      // From now on: it must see the end of the first container it starts.
      events_ = std::make_unique<ContainerEvents>(*client_, run_id);
    }
  }
  if (!client_) *err = connect_error_;
  return client_.has_value();
}

bool ContainerBackend::Start(const Launch& launch, std::string* err) {
  if (!settings_.network.empty() && ThisMachineOnly(EndpointHost(launch.bootstrap.master))) {
    *err = "workers on the container network " + settings_.network + " cannot connect to the master at " +
           launch.bootstrap.master + ", an address of the host's own network only: set listen_host to the "
           "network's gateway address (docker network inspect " + settings_.network + "), or no network";
    return false;
  }
  if (settings_.image.empty()) {
    *err = "no image to run workers in: set image (--image IMAGE, FIBER_IMAGE, or image: in fiber.yaml)";
    return false;
  }
  if (!starts_)
    starts_ = std::make_unique<RequestQueue>(kStartThreads, std::chrono::steady_clock::duration{},
                                             "starting the run's containers");
  const std::string& worker_id = launch.bootstrap.worker_id;
  starting_.insert(worker_id);
  starts_->Post(worker_id, [this, launch] {
    Started done{launch.bootstrap.worker_id, {}, ""};
    if (!Connect(launch.bootstrap.run_id, &done.error)) {
      os::MutexLock lock(mu_);
      started_.push_back(std::move(done));
      return;
    }
    bool check;
    {
      os::MutexLock lock(mu_);
      check = !program_checked_;
    }
    Container& c = done.container;
    c.memory_mb = launch.resources.memory_mb;
    const bool ok = StartWorkerContainer(*client_, settings_, launch, check, &c.id, outputs_, &c.output, &done.error);
    if (!ok && done.error.empty()) done.error = "the engine did not say why";
    os::MutexLock lock(mu_);
    program_checked_ = program_checked_ || ok;
    started_.push_back(std::move(done));
  });
  return true;
}

void ContainerBackend::TakeStarted(std::vector<Exit>* exits) {
  std::vector<Started> started;
  {
    os::MutexLock lock(mu_);
    started.swap(started_);
  }
  for (Started& s : started) {
    starting_.erase(s.worker_id);
    const bool killed = killed_starting_.erase(s.worker_id) > 0;
    if (!s.error.empty()) {
      Exit exit{s.worker_id, Because(end_word::kCannotStart, s.error), ExitStatus::Exited(125)};
      exit.not_started = true;
      exits->push_back(std::move(exit));
      continue;
    }
    containers_[s.worker_id] = std::move(s.container);
    if (killed) Kill(s.worker_id);  // as it was asked while its start was under way
  }
}

void ContainerBackend::Kill(const std::string& worker_id) {
  if (starting_.count(worker_id)) {
    if (!starts_->Drop(worker_id)) {
      killed_starting_.insert(worker_id);
      return;
    }
    starting_.erase(worker_id);
    unborn_.push_back({worker_id, Because(end_word::kCancelled, "stopped before its container was created"),
                       ExitStatus::Killed(SIGKILL)});
    return;
  }
  auto it = containers_.find(worker_id);
  if (it == containers_.end()) return;
  it->second.killed = true;
  std::string err;
  if (!client_->Kill(it->second.id, &err))
    log::Warning("cannot kill worker " + worker_id + "'s container: " + err);
}

EndCause ContainerBackend::DescribeEnd(const Container& c, const ContainerEvents::End& end) const {
  if (end.oom_killed) return OutOfMemory(c.memory_mb ? config::FormatMemory(c.memory_mb) : "");
  EndCause cause = EndedWith(ExitStatus::FromCode(end.exit_code));
  const std::string tail = LastLines(c.output->last_output(), kLastLines);
  if (!c.killed && end.exit_code != 0 && !tail.empty()) cause.text += "; its last output: " + OneLine(tail);
  return cause;
}

std::vector<Exit> ContainerBackend::Poll() {
  std::vector<Exit> exits = std::exchange(unborn_, {});
  if (starts_) TakeStarted(&exits);
  if (containers_.empty()) return exits;
  const std::string why = events_->error();
  if (why != warned_ && !why.empty()) log::Warning("cannot follow the container engine's events: " + why);
  warned_ = why;
  const auto now = std::chrono::steady_clock::now();
  for (auto it = containers_.begin(); it != containers_.end();) {
    Container& c = it->second;
    const auto end = events_->EndOf(c.id);
    const bool output_ended = c.output->ended();
    // Both halves of the news, or one and the grace period.
    if (!end && !output_ended) {
      ++it;
      continue;
    }
    if (!(end && output_ended)) {
      if (!c.ending) c.ending = now;
      if (now - *c.ending < kEndGrace) {
        ++it;
        continue;
      }
    }
    if (end) {
      exits.push_back({it->first, DescribeEnd(c, *end), ExitStatus::FromCode(end->exit_code)});
      events_->Forget(c.id);
    } else {
      // No die event: the engine's stream broke, or someone removed it.
      std::string err;
      if (!client_->Remove(c.id, &err))
        log::Warning("cannot remove worker " + it->first + "'s container: " + err);
      exits.push_back({it->first, Because(end_word::kUnknown, "its container ended (the engine did not say how)")});
    }
    it = containers_.erase(it);
  }
  return exits;
}

void ContainerBackend::KillAll() {
  if (starts_) {
    // The starts that wait never begin; those under way finish, to be killed.
    for (const std::string& worker_id : starting_) (void)starts_->Drop(worker_id);
    (void)starts_->WaitIdle(std::chrono::steady_clock::now() + std::chrono::milliseconds(engine::kLongCallMs));
    std::vector<Exit> unused;
    TakeStarted(&unused);
    starting_.clear();
    killed_starting_.clear();
  }
  if (containers_.empty()) return;
  std::string err;
  for (const auto& [worker_id, c] : containers_)
    if (!client_->Kill(c.id, &err)) log::Warning("cannot kill worker " + worker_id + "'s container: " + err);
  // Their output ends as they stop; the engine removes them.
  const auto deadline = std::chrono::steady_clock::now() + kStopWait;
  for (const auto& [worker_id, c] : containers_) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (c.output->WaitEnded(std::max(left, std::chrono::milliseconds(0)))) continue;
    if (!client_->Remove(c.id, &err)) log::Warning("cannot remove worker " + worker_id + "'s container: " + err);
  }
  containers_.clear();
}

}  // namespace fiber::backend
