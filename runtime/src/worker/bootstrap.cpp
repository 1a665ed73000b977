#include "worker/bootstrap.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "wire/credentials.hpp"
#include "wire/limits.hpp"
#include "worker/worker_id.hpp"

namespace fiber::worker {

namespace {

constexpr const char* kRole = config::kRoleVariable;
constexpr const char* kRunId = config::kRunIdVariable;
constexpr const char* kMaster = config::kMasterEndpointVariable;
constexpr const char* kParentPid = config::kParentPidVariable;

bool Require(const config::Getenv& getenv, const char* name, std::string* out, std::string* err) {
  const char* value = getenv(name);
  if (!value || !*value) {
    *err = std::string(name) + " is not set; a worker must be started by a fiber backend";
    return false;
  }
  *out = value;
  return true;
}

// tcp://host:port with a port from 1 to 65535.
bool IsTcpEndpoint(const std::string& endpoint) {
  if (endpoint.rfind("tcp://", 0) != 0) return false;
  const auto colon = endpoint.rfind(':');
  if (colon <= 6 || colon + 1 >= endpoint.size()) return false;
  char* end = nullptr;
  const long port = std::strtol(endpoint.c_str() + colon + 1, &end, 10);
  return *end == '\0' && port >= 1 && port <= 65535;
}

bool ReadParentPid(const config::Getenv& getenv, long* out, std::string* err) {
  const char* value = getenv(kParentPid);
  if (!value) return true;
  char* end = nullptr;
  errno = 0;
  const long pid = std::strtol(value, &end, 10);
  if (end == value || *end != '\0' || errno != 0 || pid < 1) {
    *err = std::string(kParentPid) + "='" + value + "' is not a process id";
    return false;
  }
  *out = pid;
  return true;
}

// The secret from the file config::kSecretFileVariable names, when set, removed
// once read; else from config::kSecretVariable.
bool ReadSecret(const config::Getenv& getenv, std::string* out, std::string* err) {
  const char* file = getenv(config::kSecretFileVariable);
  if (!file) return Require(getenv, config::kSecretVariable, out, err);
  if (!wire::ReadKeyFile(file, out)) {
    *err = std::string(config::kSecretFileVariable) + "='" + file + "' cannot be read";
    return false;
  }
  (void)::unlink(file);
  return true;
}

// How many workers the job holds: 1 when not set.
bool ReadJobWorkers(const config::Getenv& getenv, const std::string& worker_id, int* out,
                    std::string* err) {
  const char* value = getenv(config::kJobWorkersVariable);
  if (!value) return true;
  char* end = nullptr;
  errno = 0;
  const long n = std::strtol(value, &end, 10);
  long first = 0;
  if (end == value || *end != '\0' || errno != 0 || n < 1 || n > 100000) {
    *err = std::string(config::kJobWorkersVariable) + "='" + value + "' is not a number of workers";
    return false;
  }
  if (n > 1 && !WorkerNumber(worker_id, &first)) {
    *err = std::string(config::kWorkerIdVariable) + "='" + worker_id + "' is not of the form wN, which " +
           config::kJobWorkersVariable + " needs";
    return false;
  }
  *out = static_cast<int>(n);
  return true;
}

}  // namespace

std::map<std::string, std::string> ToEnvironmentWithSecretFile(const Bootstrap& b,
                                                               const std::string& secret_file) {
  std::map<std::string, std::string> env = ToEnvironment(b);
  env.erase(config::kSecretVariable);
  env[config::kSecretFileVariable] = secret_file;
  return env;
}

std::map<std::string, std::string> ToEnvironment(const Bootstrap& b) {
  std::map<std::string, std::string> env = {
      {kRole, "worker"},
      {kRunId, b.run_id},
      {kMaster, b.master},
      {config::kWorkerIdVariable, b.worker_id},
      {config::kSecretVariable, b.client_secret},
      {config::kHeartbeatInterval, config::FormatSeconds(b.heartbeat_interval)},
      {config::kHeartbeatTimeout, config::FormatSeconds(b.heartbeat_timeout)},
      {config::kStartTimeout, config::FormatSeconds(b.start_timeout)},
  };
  if (b.parent_pid > 0) env[kParentPid] = std::to_string(b.parent_pid);
  if (b.job_workers > 1) env[config::kJobWorkersVariable] = std::to_string(b.job_workers);
  env.insert(b.env.begin(), b.env.end());  // never in place of the above
  return env;
}

bool IsWorkerProcess(const config::Getenv& getenv) {
  const char* role = getenv(kRole);
  return role && std::string(role) == "worker";
}

bool ReadBootstrap(const config::Getenv& getenv, Bootstrap* out, std::string* err) {
  if (!Require(getenv, kRunId, &out->run_id, err)) return false;
  if (!Require(getenv, kMaster, &out->master, err)) return false;
  if (!IsTcpEndpoint(out->master)) {
    *err = std::string(kMaster) + "='" + out->master +
           "' is not an endpoint of the form tcp://host:port";
    return false;
  }
  if (!Require(getenv, config::kWorkerIdVariable, &out->worker_id, err)) return false;
  if (out->worker_id.size() > wire::kMaxWorkerIdBytes) {
    *err = std::string(config::kWorkerIdVariable) + " is longer than " +
           std::to_string(wire::kMaxWorkerIdBytes) + " characters";
    return false;
  }
  if (!ReadSecret(getenv, &out->client_secret, err)) return false;
  // Well-formed, so MakeCurveClient can derive the run's keys from it.
  std::string client_public;
  if (!wire::PublicKeyOf(out->client_secret, &client_public)) {
    *err = getenv(config::kSecretFileVariable)
               ? std::string(config::kSecretFileVariable) + " names a file without a 40-character Z85 CURVE key"
               : std::string(config::kSecretVariable) + " is not a 40-character Z85 CURVE key";  // not shown
    return false;
  }
  // The master hands over its timing whole; a worker never falls back to
  // defaults of its own.
  std::string unused;
  for (const char* name : {config::kHeartbeatInterval, config::kHeartbeatTimeout,
                           config::kStartTimeout})
    if (!Require(getenv, name, &unused, err)) return false;
  if (!config::ApplyTiming(getenv, &out->heartbeat_interval, &out->heartbeat_timeout,
                           &out->start_timeout, err))
    return false;
  if (const char* host = getenv(config::kManagerHostVariable)) out->manager_host = host;
  return ReadParentPid(getenv, &out->parent_pid, err) &&
         ReadJobWorkers(getenv, out->worker_id, &out->job_workers, err);
}

}  // namespace fiber::worker
