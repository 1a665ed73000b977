#include "backend/container/container_backend.hpp"

#include <limits.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "backend/command_line.hpp"
#include "backend/container/start_diagnosis.hpp"
#include "backend/labels.hpp"
#include "backend/master_reach.hpp"
#include "config/backend_names.hpp"
#include "config/quantities.hpp"
#include "diagnostics/log.hpp"
#include "engine/tar_writer.hpp"

namespace fiber::backend {

namespace {

// How long KillAll waits for killed containers to stop.
constexpr auto kStopWait = std::chrono::seconds(10);
// How long a container's end waits for the other half of its news (the end
// of its output, or its die event) before it is reported without it.
constexpr auto kEndGrace = std::chrono::seconds(5);
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

// Podman asks runc for limits of its own choosing, which a container may set
// only when they are within the hard limits of the engine's processes (no
// CAP_SYS_RESOURCE on many machines); those limits are not ours to read, and
// may be lower than the master's. 1024 open files and processes, or the
// master's own limits when lower, are within what any Linux account gets.
nlohmann::json ModestUlimits() {
  constexpr rlim_t kModest = 1024;
  nlohmann::json out = nlohmann::json::array();
  for (auto [name, resource] : {std::pair{"nofile", RLIMIT_NOFILE}, std::pair{"nproc", RLIMIT_NPROC}}) {
    rlimit r{};
    const rlim_t own = ::getrlimit(resource, &r) == 0 ? r.rlim_cur : kModest;
    const auto n = static_cast<long long>(std::min(own, kModest));
    out.push_back({{"Name", name}, {"Soft", n}, {"Hard", n}});
  }
  return out;
}

}  // namespace

std::unique_ptr<Backend> ContainerBackend::Make(const config::Settings& settings) {
  return std::make_unique<ContainerBackend>(config::EngineOf(settings.backend, settings.engine), settings);
}

ContainerBackend::ContainerBackend(std::string engine, config::Settings settings)
    : engine_(std::move(engine)), settings_(std::move(settings)) {}

ContainerBackend::~ContainerBackend() {
  KillAll();
  events_.reset();
}

bool ContainerBackend::Connect(const std::string& run_id, std::string* err) {
  if (client_) return true;
  engine::Client client;
  if (!engine::Client::Connect(engine_, config::ProcessEnvironment, &client, err)) return false;
  client_ = std::move(client);
  // From now on: it must see the end of the first container it starts.
  events_ = std::make_unique<ContainerEvents>(*client_, run_id);
  return true;
}

nlohmann::json ContainerBackend::ConfigFor(const Launch& launch,
                                           const std::vector<std::string>& command) const {
  nlohmann::json env = nlohmann::json::array();
  for (const auto& [key, value] : worker::ToEnvironmentWithSecretFile(launch.bootstrap, kSecretFile))
    env.push_back(key + "=" + value);
  // AutoRemove: the engine removes it as it ends, even with nobody left to.
  nlohmann::json host = {{"NetworkMode", settings_.network.empty() ? "host" : settings_.network},
                         {"AutoRemove", true}};
  const Resources& r = launch.resources;  // the run's settings where the pool gives none
  if (r.cpu > 0) host["NanoCpus"] = static_cast<std::int64_t>(r.cpu * 1e9);
  if (r.memory_mb > 0) host["Memory"] = r.memory_mb * 1024 * 1024;
  if (r.gpu > 0)
    host["DeviceRequests"] = {{{"Driver", ""},
                               {"Count", r.gpu},
                               {"Capabilities", nlohmann::json::array({{"gpu"}})}}};
  if (client_->kind() == "podman") host["Ulimits"] = ModestUlimits();
  return {{"Image", settings_.image},
          {"Entrypoint", {command.front()}},
          {"Cmd", std::vector<std::string>(command.begin() + 1, command.end())},
          {"Env", env},
          {"Labels",
           {{kRunLabel, launch.bootstrap.run_id},
            {kRoleLabel, kWorkerRole},
            {kWorkerLabel, launch.bootstrap.worker_id}}},
          {"HostConfig", host}};
}

bool ContainerBackend::Start(const Launch& launch, std::string* err) {
  if (!settings_.network.empty() && ThisMachineOnly(EndpointHost(launch.bootstrap.master))) {
    *err = "workers on the container network " + settings_.network + " cannot connect to the master at " +
           launch.bootstrap.master + ", an address of the host's own network only: set listen_host to the "
           "network's gateway address (docker network inspect " + settings_.network + "), or no network";
    return false;
  }
  if (!Connect(launch.bootstrap.run_id, err)) return false;
  if (settings_.image.empty()) {
    *err = "no image to run workers in: set image (--image IMAGE, FIBER_IMAGE, or image: in fiber.yaml)";
    return false;
  }
  const std::vector<std::string> command = CommandLineAtOwnPath();
  const std::string& worker_id = launch.bootstrap.worker_id;
  std::string id;
  if (!client_->Create(RunName(launch.bootstrap.run_id) + "-" + worker_id, ConfigFor(launch, command),
                       &id, err))
    return false;
  // From here the container exists: a failure removes it.
  auto fail = [&](const std::string& why) {
    std::string unused;
    (void)client_->Remove(id, &unused);
    *err = why;
    return false;
  };
  std::string archive;
  engine::StringSink sink(&archive);
  engine::TarWriter tar(&sink, 0);
  if (!tar.Directory(std::string(kSecretDir).substr(1), 0700, err) ||
      !tar.FileWith(std::string(kSecretFile).substr(1), 0400, launch.bootstrap.client_secret, err) ||
      !tar.Finish(err))
    return fail(*err);
  if (!client_->PutArchive(id, "/", archive, err))
    return fail("cannot put the run's key into container " + id.substr(0, 12) + ": " + *err);
  if (!program_checked_ && !CheckProgramIn(*client_, id, settings_.image, command.front(), err))
    return fail(*err);
  program_checked_ = true;
  // Podman prepares the container as it attaches: a program that cannot
  // start fails here already.
  auto output = ContainerOutput::Attach(*client_, id, worker_id, launch.log_file, err);
  if (!output) return fail(DescribeStartFailure(settings_.image, command.front(), *err));
  if (!client_->Start(id, err)) return fail(DescribeStartFailure(settings_.image, command.front(), *err));
  containers_[worker_id] = {id, std::move(output), launch.resources.memory_mb, false, std::nullopt};
  return true;
}

void ContainerBackend::Kill(const std::string& worker_id) {
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
  std::vector<Exit> exits;
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
