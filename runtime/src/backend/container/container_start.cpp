#include "backend/container/container_start.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cstdint>

#include "backend/command_line.hpp"
#include "backend/container/start_diagnosis.hpp"
#include "backend/labels.hpp"
#include "engine/tar_writer.hpp"

namespace fiber::backend {

namespace {

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

nlohmann::json WorkerContainerConfig(const std::string& engine_kind, const config::Settings& settings,
                                     const Launch& launch, const std::vector<std::string>& command) {
  nlohmann::json env = nlohmann::json::array();
  for (const auto& [key, value] : worker::ToEnvironmentWithSecretFile(launch.bootstrap, kSecretFile))
    env.push_back(key + "=" + value);
  // AutoRemove: the engine removes it as it ends, even with nobody left to.
  nlohmann::json host = {{"NetworkMode", settings.network.empty() ? "host" : settings.network},
                         {"AutoRemove", true}};
  const Resources& r = launch.resources;  // the run's settings where the pool gives none
  if (r.cpu > 0) host["NanoCpus"] = static_cast<std::int64_t>(r.cpu * 1e9);
  if (r.memory_mb > 0) host["Memory"] = r.memory_mb * 1024 * 1024;
  if (r.gpu > 0)
    host["DeviceRequests"] = {{{"Driver", ""},
                               {"Count", r.gpu},
                               {"Capabilities", nlohmann::json::array({{"gpu"}})}}};
  if (engine_kind == "podman") host["Ulimits"] = ModestUlimits();
  return {{"Image", settings.image},
          {"Entrypoint", {command.front()}},
          {"Cmd", std::vector<std::string>(command.begin() + 1, command.end())},
          {"Env", env},
          {"Labels",
           {{kRunLabel, launch.bootstrap.run_id},
            {kRoleLabel, kWorkerRole},
            {kWorkerLabel, launch.bootstrap.worker_id}}},
          {"HostConfig", host}};
}

bool StartWorkerContainer(const engine::Client& client, const config::Settings& settings, const Launch& launch,
                          bool check_program, std::string* id_out, http::StreamSet& outputs,
                          std::unique_ptr<ContainerOutput>* output, std::string* err) {
  const std::vector<std::string> command = CommandLineAtOwnPath();
  const std::string& worker_id = launch.bootstrap.worker_id;
  std::string id;
  if (!client.Create(RunName(launch.bootstrap.run_id) + "-" + worker_id,
                     WorkerContainerConfig(client.kind(), settings, launch, command), &id, err))
    return false;
  // From here the container exists: a failure removes it.
  auto fail = [&](const std::string& why) {
    output->reset();  // stops following it
    std::string unused;
    (void)client.Remove(id, &unused);
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
  if (!client.PutArchive(id, "/", archive, err))
    return fail("cannot put the run's key into container " + id.substr(0, 12) + ": " + *err);
  if (check_program && !CheckProgramIn(client, id, settings.image, command.front(), err)) return fail(*err);
  // Podman prepares the container as it attaches: a program that cannot
  // start fails here already.
  *output = ContainerOutput::Attach(outputs, client, id, worker_id, launch.log_file, err);
  if (!*output) return fail(DescribeStartFailure(settings.image, command.front(), *err));
  if (!client.Start(id, err)) return fail(DescribeStartFailure(settings.image, command.front(), *err));
  *id_out = id;
  return true;
}

}  // namespace fiber::backend
