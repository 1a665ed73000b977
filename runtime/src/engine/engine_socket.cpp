#include "engine/engine_socket.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace fiber::engine {

namespace {

void AddUnixUrl(const char* url, std::vector<std::string>* out) {
  if (!url) return;
  const std::string text = url;
  if (text.rfind("unix://", 0) == 0 && text.size() > 7) out->push_back(text.substr(7));
}

}  // namespace

std::vector<std::string> CandidateSockets(const std::string& engine, const os::Getenv& getenv) {
  std::vector<std::string> out;
  // A variable that is set is the engine's only address, as for its CLI.
  if (engine != "podman") {
    if (getenv("DOCKER_HOST"))
      AddUnixUrl(getenv("DOCKER_HOST"), &out);
    else
      out.push_back("/var/run/docker.sock");
  }
  if (engine != "docker") {
    if (getenv("CONTAINER_HOST")) {
      AddUnixUrl(getenv("CONTAINER_HOST"), &out);
    } else {
      if (const char* runtime_dir = getenv("XDG_RUNTIME_DIR"); runtime_dir && *runtime_dir)
        out.push_back(std::string(runtime_dir) + "/podman/podman.sock");
      out.push_back("/run/podman/podman.sock");
    }
  }
  return out;
}

bool FindSocket(const std::string& engine, const os::Getenv& getenv, std::string* socket,
                std::string* err) {
  const std::vector<std::string> candidates = CandidateSockets(engine, getenv);
  for (const std::string& path : candidates) {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) continue;
    if (!S_ISSOCK(st.st_mode)) {
      *err = "no container engine: " + path + " is not a socket";
      return false;
    }
    if (::access(path.c_str(), R_OK | W_OK) != 0) {
      *err = "permission denied on the container engine's socket " + path +
             (errno == EACCES ? " (join its group, e.g. docker, or use a rootless engine)"
                              : std::string(": ") + std::strerror(errno));
      return false;
    }
    *socket = path;
    return true;
  }
  if (candidates.empty()) {
    *err = "no container engine (engine: " + engine +
           "): DOCKER_HOST or CONTAINER_HOST is not a unix:// URL, and fiber reaches an engine "
           "only on its Unix socket";
    return false;
  }
  std::string tried;
  for (const auto& path : candidates) tried += (tried.empty() ? "" : ", ") + path;
  // The variable this engine reads, as CandidateSockets reads it.
  const std::string set = engine == "docker"   ? "DOCKER_HOST=unix://PATH"
                          : engine == "podman" ? "CONTAINER_HOST=unix://PATH"
                                               : "DOCKER_HOST or CONTAINER_HOST=unix://PATH";
  const std::string start = engine == "docker"   ? "start Docker"
                            : engine == "podman" ? "start `podman system service`"
                                                 : "start Docker or `podman system service`";
  *err = "no container engine (engine: " + engine + "): none of " + tried + " exists; " + start +
         ", or set " + set;
  return false;
}

}  // namespace fiber::engine
