#include "image/registry_credentials.hpp"

#include <unistd.h>

#include <nlohmann/json.hpp>
#include <vector>

#include "encoding/base64.hpp"
#include "os/run_capture.hpp"
#include "os/whole_file.hpp"

namespace fiber::image {

namespace {

using nlohmann::json;

std::string Env(const config::Getenv& getenv, const char* name) {
  const char* value = getenv(name);
  return value ? value : "";
}

// The places to look, in order; missing ones are skipped.
std::vector<std::string> AuthFiles(const config::Getenv& getenv) {
  std::vector<std::string> files;
  const std::string home = Env(getenv, "HOME");
  const std::string docker = Env(getenv, "DOCKER_CONFIG");
  if (!docker.empty()) files.push_back(docker + "/config.json");
  else if (!home.empty()) files.push_back(home + "/.docker/config.json");
  const std::string podman = Env(getenv, "REGISTRY_AUTH_FILE");
  const std::string runtime = Env(getenv, "XDG_RUNTIME_DIR");
  if (!podman.empty()) files.push_back(podman);
  else if (!runtime.empty()) files.push_back(runtime + "/containers/auth.json");
  if (podman.empty() && !home.empty()) files.push_back(home + "/.config/containers/auth.json");
  return files;
}

// "https://host:port/v1/" as "host:port": config.json keys come both ways.
std::string HostOfKey(std::string key) {
  if (const auto scheme = key.find("://"); scheme != std::string::npos) key.erase(0, scheme + 3);
  return key.substr(0, key.find('/'));
}

bool FromHelper(const std::string& helper, const std::string& registry, const std::string& file,
                Credentials* out, std::string* err) {
  const std::string program = "docker-credential-" + helper;
  Capture what;
  what.argv = {program, "get"};
  what.input = registry;
  Captured run;
  if (!RunCapture(what, &run, err)) return false;
  const std::string& output = run.output;
  if (run.status != 0) {
    // A helper that does not know the registry says so; that is no error.
    if (output.find("credentials not found") != std::string::npos) return true;
    *err = program + " (named in " + file + ") failed for " + registry + " with status " +
           std::to_string(run.status);
    return false;
  }
  const json answer = json::parse(output, nullptr, false);
  if (!answer.is_object()) {
    *err = program + " (named in " + file + ") gave no credentials for " + registry;
    return false;
  }
  out->username = answer.value("Username", "");
  out->secret = answer.value("Secret", "");
  out->source = file + " (" + program + ")";
  return true;
}

bool FromFile(const std::string& file, const std::string& registry, Credentials* out,
              std::string* err) {
  // A file that is not there (or not ours to read) holds no credentials; one
  // that opens but cannot be read (a directory) is not valid JSON below.
  std::string text, unused;
  if (!os::ReadWholeFile(file, &text, &unused) && ::access(file.c_str(), R_OK) != 0) return true;
  const json doc = json::parse(text, nullptr, false);
  if (!doc.is_object()) {
    *err = file + " is not valid JSON";
    return false;
  }
  if (doc.contains("credHelpers") && doc["credHelpers"].is_object())
    for (const auto& [key, helper] : doc["credHelpers"].items())
      if (HostOfKey(key) == registry && helper.is_string())
        return FromHelper(helper.get<std::string>(), registry, file, out, err);
  if (doc.contains("auths") && doc["auths"].is_object())
    for (const auto& [key, entry] : doc["auths"].items()) {
      if (HostOfKey(key) != registry || !entry.is_object()) continue;
      if (!entry.contains("auth") || !entry["auth"].is_string()) continue;
      std::string pair;
      if (!Base64Decode(entry["auth"].get<std::string>(), &pair) ||
          pair.find(':') == std::string::npos) {
        *err = file + ": the auth of " + key + " is not base64 of user:password";
        return false;
      }
      out->username = pair.substr(0, pair.find(':'));
      out->secret = pair.substr(pair.find(':') + 1);
      out->source = file;
      return true;
    }
  if (doc.contains("credsStore") && doc["credsStore"].is_string())
    return FromHelper(doc["credsStore"].get<std::string>(), registry, file, out, err);
  return true;
}

}  // namespace

bool FindCredentials(const std::string& registry, const config::Getenv& getenv,
                     Credentials* out, std::string* err) {
  *out = Credentials{};
  for (const auto& file : AuthFiles(getenv)) {
    if (!FromFile(file, registry, out, err)) return false;
    if (out->found()) return true;
  }
  return true;
}

}  // namespace fiber::image
