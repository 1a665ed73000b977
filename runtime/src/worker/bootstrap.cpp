#include "worker/bootstrap.hpp"

#include <cstdlib>

#include "wire/credentials.hpp"

namespace fiber::worker {

bool IsWorkerProcess(const config::Getenv& getenv) {
  const char* role = getenv("FIBER_ROLE");
  return role && std::string(role) == "worker";
}

namespace {

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

}  // namespace

bool ReadBootstrap(const config::Getenv& getenv, Bootstrap* out, std::string* err) {
  if (!Require(getenv, "FIBER_MASTER", &out->master, err)) return false;
  if (!IsTcpEndpoint(out->master)) {
    *err = "FIBER_MASTER='" + out->master + "' is not an endpoint of the form tcp://host:port";
    return false;
  }
  if (!Require(getenv, "FIBER_WORKER_ID", &out->worker_id, err)) return false;
  if (out->worker_id.size() > 255) {
    *err = "FIBER_WORKER_ID is longer than 255 characters";
    return false;
  }
  if (!Require(getenv, "FIBER_SERVER_KEY", &out->server_public, err)) return false;
  if (!wire::IsZ85Key(out->server_public)) {
    *err = "FIBER_SERVER_KEY is not a 40-character Z85 CURVE key";
    return false;
  }
  if (!Require(getenv, "FIBER_CLIENT_KEY", &out->client_secret, err)) return false;
  if (!wire::PublicKeyOf(out->client_secret, &out->client_public)) {
    *err = "FIBER_CLIENT_KEY is not a 40-character Z85 CURVE key";  // value not shown: a secret
    return false;
  }
  std::string unused;
  if (!Require(getenv, "FIBER_HEARTBEAT_INTERVAL", &unused, err) ||
      !Require(getenv, "FIBER_HEARTBEAT_TIMEOUT", &unused, err) ||
      !config::ApplyHeartbeat(getenv, &out->heartbeat_interval, &out->heartbeat_timeout, err))
    return false;
  if (const char* parent = getenv("FIBER_PARENT_PID")) out->parent_pid = std::atol(parent);
  return true;
}

}  // namespace fiber::worker
