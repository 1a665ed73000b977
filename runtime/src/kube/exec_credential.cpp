#include "kube/exec_credential.hpp"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <ctime>

#include <nlohmann/json.hpp>

#include "encoding/base64.hpp"
#include "os/mutex.hpp"
#include "os/run_capture.hpp"

namespace fiber::kube {

namespace {

using json = nlohmann::json;

// What KUBERNETES_EXEC_INFO tells the plugin: the request's version, that
// no terminal is at hand, and the cluster when the kubeconfig asks for it.
std::string ExecInfo(const ExecConfig& c) {
  json spec = {{"interactive", false}};
  if (c.provide_cluster_info) {
    json cluster = {{"server", c.cluster_server}};
    if (!c.cluster_ca_pem.empty())
      cluster["certificate-authority-data"] = Base64Encode(c.cluster_ca_pem);
    if (c.cluster_insecure_skip_verify) cluster["insecure-skip-tls-verify"] = true;
    spec["cluster"] = cluster;
  }
  return json{{"apiVersion", c.api_version}, {"kind", "ExecCredential"}, {"spec", spec}}.dump();
}

}  // namespace

bool ExecCredentialPlugin::Get(ClientIdentity* identity, std::string* err) {
  os::MutexLock lock(mu_);
  const bool expired =
      expiry_ != std::chrono::sys_seconds{} &&
      std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()) >= expiry_;
  if (!cached_ || expired) {
    cached_ = false;
    if (!Run(&identity_, &expiry_, err)) return false;
    cached_ = true;
  }
  *identity = identity_;
  return true;
}

void ExecCredentialPlugin::Forget() {
  os::MutexLock lock(mu_);
  cached_ = false;
  identity_ = {};
}

bool ExecCredentialPlugin::Run(ClientIdentity* identity, std::chrono::sys_seconds* expiry,
                               std::string* err) const {
  const ExecConfig& c = config_;
  const std::string plugin = "the credential plugin " + c.command + " (" + c.owner + ")";
  if (c.interactive_mode == "Always") {
    *err = plugin + " needs a terminal (interactiveMode: Always), which fiber never gives it";
    return false;
  }
  Capture what;
  what.argv.push_back(c.command);
  what.argv.insert(what.argv.end(), c.args.begin(), c.args.end());
  what.env.push_back("KUBERNETES_EXEC_INFO=" + ExecInfo(c));
  for (const auto& [name, value] : c.env) what.env.push_back(name + "=" + value);
  what.timeout_ms = std::chrono::milliseconds(kExecPluginTimeout).count();
  Captured run;
  std::string start_err;
  if (!RunCapture(what, &run, &start_err)) {
    if (run.start_errno == ENOENT)
      *err = plugin + " is not installed (no such file" +
             (c.command.find('/') == std::string::npos ? " on PATH)" : ")");
    else
      *err = plugin + " cannot be started: " + start_err;
    if (!c.install_hint.empty()) *err += ". " + LastLine(c.install_hint);
    return false;
  }
  if (run.timed_out) {
    *err = plugin + " did not finish within " + std::to_string(kExecPluginTimeout.count()) +
           " s and was stopped";
    return false;
  }
  if (run.status != 0) {
    *err = plugin + " failed with status " + std::to_string(run.status);
    const std::string said = LastLine(run.errors);
    if (!said.empty()) *err += ": " + said;
    return false;
  }
  const json answer = json::parse(run.output, nullptr, false);
  if (!answer.is_object() || answer.value("kind", "") != "ExecCredential") {
    *err = plugin + " printed no ExecCredential (a JSON object on stdout)";
    return false;
  }
  const std::string version = answer.value("apiVersion", "");
  if (version != c.api_version) {
    *err = plugin + " answered with apiVersion \"" + version + "\" where \"" + c.api_version +
           "\" was asked for";
    return false;
  }
  const json status = answer.contains("status") ? answer["status"] : json();
  if (!status.is_object()) {
    *err = plugin + " printed an ExecCredential without status";
    return false;
  }
  auto text = [&](const char* key) {
    return status.contains(key) && status[key].is_string() ? status[key].get<std::string>() : "";
  };
  ClientIdentity got;
  got.token = text("token");
  got.client_cert_pem = text("clientCertificateData");
  got.client_key_pem = text("clientKeyData");
  if (got.client_cert_pem.empty() != got.client_key_pem.empty()) {
    *err = plugin + " gave " +
           (got.client_cert_pem.empty() ? "clientKeyData without clientCertificateData"
                                        : "clientCertificateData without clientKeyData");
    return false;
  }
  if (got.token.empty() && got.client_cert_pem.empty()) {
    *err = plugin + " gave neither status.token nor status.clientCertificateData";
    return false;
  }
  *expiry = {};
  const std::string expires = text("expirationTimestamp");
  if (!expires.empty() && !ParseRfc3339(expires, expiry)) {
    *err = plugin + " gave an expirationTimestamp that is no RFC 3339 time: " + expires;
    return false;
  }
  *identity = std::move(got);
  return true;
}

bool ParseRfc3339(const std::string& text, std::chrono::sys_seconds* at) {
  std::tm tm{};
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &consumed) != 6 ||
      consumed != 19)
    return false;
  if (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 ||
      tm.tm_min > 59 || tm.tm_sec > 60)
    return false;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  std::size_t i = 19;
  if (i < text.size() && text[i] == '.') {
    ++i;
    if (i >= text.size() || !std::isdigit(static_cast<unsigned char>(text[i]))) return false;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  }
  long offset_s = 0;
  const std::string zone = text.substr(i);
  if (zone == "Z" || zone == "z") {
  } else if (zone.size() == 6 && (zone[0] == '+' || zone[0] == '-') && zone[3] == ':') {
    int hours = 0, minutes = 0;
    if (std::sscanf(zone.c_str() + 1, "%2d:%2d", &hours, &minutes) != 2) return false;
    offset_s = (hours * 60L + minutes) * 60 * (zone[0] == '-' ? -1 : 1);
  } else {
    return false;
  }
  const std::time_t utc = timegm(&tm);
  if (utc == static_cast<std::time_t>(-1)) return false;
  *at = std::chrono::sys_seconds(std::chrono::seconds(utc - offset_s));
  return true;
}

}  // namespace fiber::kube
