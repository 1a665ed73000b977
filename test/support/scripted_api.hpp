// A scripted Kubernetes API server (test/programs/scripted_api.py, which
// says how a script answers) for tests of the API client and of what
// watches pods: started per test, stopped when the test ends, with the
// requests it was sent; and the objects and answers such scripts hold.
// A test executable using it defines SCRIPTED_API as the script's path.
#pragma once

#include <doctest/doctest.h>
#include <signal.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kube/api_client.hpp"
#include "subprocess.hpp"
#include "support/temp_dir.hpp"

namespace fiber::testing {

using nlohmann::json;

/// The pods of namespace "ns", where ScriptedApi's clients look.
inline constexpr const char* kScriptedPods = "/api/v1/namespaces/ns/pods";

/// A pod as the API serves it, with a phase when given.
inline json Pod(const std::string& name, const std::string& version, const std::string& phase = "") {
  json pod = {{"kind", "Pod"}, {"metadata", {{"name", name}, {"resourceVersion", version}}}};
  if (!phase.empty()) pod["status"] = {{"phase", phase}};
  return pod;
}

inline json Event(const std::string& type, const json& object) { return {{"type", type}, {"object", object}}; }

/// The answer to requests whose path and query start with a key.
inline json Answer(int status, const std::vector<json>& lines) {
  json answer = json::object();
  answer["status"] = status;
  answer["lines"] = lines;
  return answer;
}

/// An answer with a Retry-After header.
inline json Busy(int status, const std::string& retry_after) {
  json answer = Answer(status, {json{{"kind", "Status"}, {"message", "slow down"}}});
  answer["headers"] = {{"Retry-After", retry_after}};
  return answer;
}

/// The Status of a watch from a resourceVersion the server forgot.
inline json Gone() {
  return {{"kind", "Status"}, {"apiVersion", "v1"}, {"status", "Failure"},
          {"message", "too old resource version: 5 (90)"}, {"reason", "Expired"}, {"code", 410}};
}

/// A watch from version, which the server ends within 5 s.
inline kube::WatchOptions WatchFrom(const std::string& version) {
  kube::WatchOptions options;
  options.resource_version = version;
  options.timeout_seconds = 5;
  return options;
}

/// The scripted server, answering as script says, stopped when the test ends.
struct ScriptedApi {
  TempDir dir;
  std::string script_file;
  Child child;
  int port = 0;
  explicit ScriptedApi(const std::map<std::string, json>& script) {
    script_file = dir.write("script.json", json(script).dump());
    child = spawn({SCRIPTED_API, script_file}, {});
    const std::string line = read_line(child.stdout_fd, 30);
    REQUIRE(line.rfind("ready ", 0) == 0);
    port = std::stoi(line.substr(6));
  }
  ~ScriptedApi() {
    kill(child.pid, SIGKILL);
    wait_exit(child, 10);
  }
  kube::ApiClient client() const {
    fiber::kube::ClusterAccess access;
    access.server = "http://127.0.0.1:" + std::to_string(port);
    access.context = "scripted";
    access.namespace_name = "ns";
    return kube::ApiClient(access);
  }
  std::vector<std::string> requests() const {
    std::ifstream in(script_file + ".requests");
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }
};

}  // namespace fiber::testing
