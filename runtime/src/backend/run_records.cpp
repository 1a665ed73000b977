#include "backend/run_records.hpp"

#include <cstdlib>

#include "backend/slurm/slurm_command.hpp"
#include "engine/engine_socket.hpp"
#include "kube/kubeconfig.hpp"

namespace fiber::backend {

std::string RunPlace::Setting(const std::string& key) const {
  const auto it = settings.find(key);
  return it == settings.end() ? "" : it->second;
}

config::Getenv RunPlace::Getenv() const {
  if (!engine_env) return config::ProcessEnvironment;
  return [env = *engine_env](const char* name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
}

std::map<std::string, std::string> EngineEnvironment(const config::Getenv& getenv) {
  std::map<std::string, std::string> env;
  const auto keep = [&](const char* name) {
    if (const char* value = getenv(name)) env[name] = value;
  };
  for (const char* name : engine::kSocketVariables) keep(name);
  for (const char* name : kube::kSearchVariables) keep(name);
  for (const char* name : kSlurmVariables) keep(name);
  return env;
}

std::string Counted(int n, const char* what) {
  return n == 0 ? "" : std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

bool RunRecords::Leftovers(const RunPlace&, std::vector<std::string>*, std::string*) const { return true; }

bool RunRecords::ReadLog(const RunPlace&, const std::string&, bool, bool, const std::function<bool(std::string_view)>&,
                         bool* found, std::string*) const {
  *found = false;
  return true;
}

}  // namespace fiber::backend
