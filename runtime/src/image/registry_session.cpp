#include "image/registry_session.hpp"

#include <cctype>
#include <map>
#include <nlohmann/json.hpp>

#include "encoding/base64.hpp"

namespace fiber::image {

namespace {

// `Bearer realm="https://auth.example/token",service="registry.example"`:
// the scheme in lower case, and the parameters.
std::string ParseChallenge(const std::string& header, std::map<std::string, std::string>* params) {
  std::size_t at = header.find(' ');
  std::string scheme = header.substr(0, at);
  for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  while (at != std::string::npos && at < header.size()) {
    while (at < header.size() && (header[at] == ' ' || header[at] == ',')) ++at;
    const auto eq = header.find('=', at);
    if (eq == std::string::npos) break;
    const std::string key = header.substr(at, eq - at);
    std::string value;
    at = eq + 1;
    if (at < header.size() && header[at] == '"') {
      const auto close = header.find('"', at + 1);
      value = header.substr(at + 1, close == std::string::npos ? std::string::npos : close - at - 1);
      at = close == std::string::npos ? header.size() : close + 1;
    } else {
      const auto comma = header.find(',', at);
      value = header.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
      at = comma;
    }
    (*params)[key] = value;
  }
  return scheme;
}

}  // namespace

bool RegistrySession::Refused(std::string* err) const {
  if (credentials_.found())
    *err = where_.registry + " refused the credentials of " + credentials_.username + " (from " +
           credentials_.source + ")";
  else
    *err = where_.registry + " asks for credentials and none are kept for it (docker login " +
           where_.registry + ", or podman login)";
  return false;
}

bool RegistrySession::Withheld(const std::string& url, std::string* err) const {
  *err = where_.registry + " sent fiber to " + url.substr(0, url.find('/', url.find("://") + 3)) +
         ", which asks for credentials; fiber sends the credentials of " + where_.registry +
         " only to " + where_.BaseUrl() + " itself, and to a token service named by the "
         "registry_token_service setting (e.g. https://auth.docker.io for Docker Hub)";
  return false;
}

bool RegistrySession::Authorize(const std::string& challenge, std::string* err) {
  std::map<std::string, std::string> params;
  const std::string scheme = ParseChallenge(challenge, &params);
  const std::string basic =
      credentials_.found() ? "Basic " + Base64Encode(credentials_.username + ":" + credentials_.secret) : "";
  if (scheme == "basic") {
    if (!credentials_.found()) return Refused(err);
    authorization_ = basic;
    return true;
  }
  if (scheme != "bearer" || params["realm"].empty()) {
    *err = where_.registry + " asks for an authentication fiber does not speak: " + scheme;
    return false;
  }
  http::Request ask;
  // Pushing needs both, whatever the first challenge (a HEAD's) asked.
  const std::string scope = "repository:" + where_.repository + ":pull,push";
  const std::string& realm = params["realm"];
  ask.url = realm + (realm.find('?') == std::string::npos ? "?" : "&") +
            "service=" + http::Escape(params["service"]) + "&scope=" + http::Escape(scope);
  // A realm elsewhere is asked without them: the registry's answer named it.
  const bool withheld = !basic.empty() && !where_.Owns(realm) &&
                        !(SecureUrl(realm) && UrlUnder(realm, credentials_.token_service));
  if (!basic.empty() && !withheld) ask.headers.push_back("Authorization: " + basic);
  http::Response answer;
  if (!http::Perform(ask, &answer, err)) {
    *err = "cannot reach the token service of " + where_.registry + ": " + *err;
    return false;
  }
  if ((answer.status == 401 || answer.status == 403) && withheld) return Withheld(realm, err);
  if (answer.status == 401 || answer.status == 403) return Refused(err);
  const auto body = nlohmann::json::parse(answer.body, nullptr, false);
  std::string token;
  if (body.is_object()) token = body.value("token", body.value("access_token", ""));
  if (answer.status != 200 || token.empty()) {
    *err = "the token service of " + where_.registry + " gave no token (HTTP " +
           std::to_string(answer.status) + ")";
    return false;
  }
  authorization_ = "Bearer " + token;
  return true;
}

bool RegistrySession::Send(http::Request request, http::Response* response, std::string* err) {
  if (request.url.rfind("http", 0) != 0) request.url = where_.BaseUrl() + request.url;
  const std::vector<std::string> headers = request.headers;
  for (int attempt = 0; attempt < 2; ++attempt) {
    request.headers = headers;
    const bool own = where_.Owns(request.url);
    if (own && !authorization_.empty()) request.headers.push_back("Authorization: " + authorization_);
    if (!http::Perform(request, response, err)) {
      *err = "cannot reach the registry " + where_.registry + ": " + *err;
      return false;
    }
    if (response->status != 401) return true;
    if (!own) return Withheld(request.url, err);
    if (attempt == 1 || !authorization_.empty()) return Refused(err);
    if (!Authorize(response->header("WWW-Authenticate"), err)) return false;
  }
  return Refused(err);
}

}  // namespace fiber::image
