#include "backend/container/container_backend.hpp"

#include <limits.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "backend/command_line.hpp"
#include "backend/container/run_containers.hpp"
#include "backend/container/start_diagnosis.hpp"
#include "backend/labels.hpp"
#include "config/quantities.hpp"
#include "engine/tar_writer.hpp"
#include "log.hpp"

namespace fiber::backend {

namespace {

// How long KillAll waits for a killed container to stop.
constexpr long kStopWaitMs = 10000;
// How much of a failed container's output its exit shows.
constexpr int kLastLines = 5;
constexpr std::size_t kLastOutputBytes = 600;

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

std::string EngineOf(const std::string& backend, const std::string& engine_setting) {
  if (backend == "docker" || backend == "podman") return backend;
  return backend == "container" ? engine_setting : "";
}

std::string ImageEngineOf(const std::string& backend, const std::string& engine_setting) {
  const std::string engine = EngineOf(backend, engine_setting);
  return engine.empty() ? engine_setting : engine;
}

std::unique_ptr<Backend> ContainerBackend::Make(const config::Settings& settings) {
  return std::make_unique<ContainerBackend>(EngineOf(settings.backend, settings.engine), settings);
}

ContainerBackend::ContainerBackend(std::string engine, config::Settings settings)
    : engine_(std::move(engine)), settings_(std::move(settings)) {}

ContainerBackend::~ContainerBackend() { KillAll(); }

bool ContainerBackend::Connect(std::string* err) {
  if (client_) return true;
  engine::Client client;
  const config::Getenv getenv = [](const char* name) -> const char* { return std::getenv(name); };
  if (!engine::Client::Connect(engine_, getenv, &client, err)) return false;
  client_ = std::move(client);
  return true;
}

nlohmann::json ContainerBackend::ConfigFor(const Launch& launch,
                                           const std::vector<std::string>& command) const {
  nlohmann::json env = nlohmann::json::array();
  for (const auto& [key, value] : worker::ToEnvironmentWithSecretFile(launch.bootstrap, kSecretFile))
    env.push_back(key + "=" + value);
  nlohmann::json host = {{"NetworkMode", "host"}};
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
  if (!Connect(err)) return false;
  if (settings_.image.empty()) {
    *err = "no image to run workers in: set image (--image IMAGE, FIBER_IMAGE, or image: in fiber.yaml)";
    return false;
  }
  run_id_ = launch.bootstrap.run_id;
  const std::vector<std::string> command = CommandLineAtOwnPath();
  const std::string& worker_id = launch.bootstrap.worker_id;
  std::string id;
  if (!client_->Create("fiber-" + run_id_ + "-" + worker_id, ConfigFor(launch, command), &id, err))
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
  if (!client_->Start(id, err))
    return fail(DiagnoseStart(*client_, id, settings_.image, command.front(), *err));
  containers_[worker_id] = {id, command.front(), launch.log_file};
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

std::string ContainerBackend::DescribeEnd(const Container& c) {
  nlohmann::json info;
  std::string err;
  if (!client_->Inspect(c.id, &info, &err)) return "its container ended (" + err + ")";
  const nlohmann::json state = info.value("State", nlohmann::json::object());
  if (state.value("OOMKilled", false))
    return "its container was killed for using more than its memory limit (" +
           config::FormatMemory(settings_.memory_mib) + ")";
  const long code = state.value("ExitCode", -1L);
  std::string how = DescribeExitCode(code);
  std::string tail;
  if (c.killed || code == 0 || !client_->Logs(c.id, kLastLines, &tail, &err) || tail.empty())
    return how;
  // runc reports an exec that failed after the start on the container's
  // output ("exec /app/train: no such file or directory"): a missing loader.
  if (tail.rfind("exec ", 0) == 0)
    return DiagnoseStart(*client_, c.id, settings_.image, c.program, tail) + " (" + how + ")";
  return how + "; its last output: " + OneLine(tail);
}

std::vector<Exit> ContainerBackend::Poll() {
  std::vector<Exit> exits;
  if (containers_.empty()) return exits;
  std::vector<RunContainer> listed;
  std::string err;
  if (!ListRunContainers(*client_, run_id_, &listed, &err)) {
    if (!poll_failing_) log::Warning("the container engine does not answer: " + err);
    poll_failing_ = true;
    return exits;
  }
  poll_failing_ = false;
  std::map<std::string, std::string> state_of;
  for (const RunContainer& c : listed) state_of[c.id] = c.state;
  for (auto it = containers_.begin(); it != containers_.end();) {
    const auto found = state_of.find(it->second.id);
    if (found != state_of.end() && found->second != "exited" && found->second != "dead") {
      ++it;
      continue;
    }
    if (found == state_of.end()) {
      exits.push_back({it->first, "its container was removed"});
    } else {
      exits.push_back({it->first, DescribeEnd(it->second)});
      if (!SaveLogAndRemove(*client_, it->second.id, it->second.log_file, &err))
        log::Warning("cannot remove worker " + it->first + "'s container: " + err);
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
  for (const auto& [worker_id, c] : containers_) {
    long code = 0;
    (void)client_->Wait(c.id, kStopWaitMs, &code, &err);
    if (!SaveLogAndRemove(*client_, c.id, c.log_file, &err))
      log::Warning("cannot remove worker " + worker_id + "'s container: " + err);
  }
  containers_.clear();
}

}  // namespace fiber::backend
