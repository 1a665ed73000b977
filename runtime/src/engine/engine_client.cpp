#include "engine/engine_client.hpp"

#include "engine/engine_answer.hpp"
#include "engine/engine_socket.hpp"

namespace fiber::engine {

namespace {

constexpr const char* kApi = "http://engine/v1.41";

}  // namespace

bool Client::Connect(const std::string& engine, const os::Getenv& getenv, Client* out,
                     std::string* err, long timeout_ms) {
  std::string socket;
  if (!FindSocket(engine, getenv, &socket, err)) return false;
  Client client(socket);
  http::Response r;
  if (!client.Call("GET", "/version", {}, timeout_ms, &r, err)) {
    // An answer, but an error: something other than an engine on the socket.
    if (r.status != 0) *err = "the container engine at " + socket + " does not answer: " + *err;
    return false;
  }
  const auto version = nlohmann::json::parse(r.body, nullptr, false);
  if (version.is_object() && version.contains("Components") && version["Components"].is_array())
    for (const auto& c : version["Components"])
      if (c.value("Name", "").find("Podman") != std::string::npos) client.kind_ = "podman";
  *out = std::move(client);
  return true;
}

http::Request Client::NewRequest(const std::string& method, const std::string& path,
                                 long timeout_ms, const std::atomic<bool>* cancel) const {
  http::Request q;
  q.method = method;
  q.url = kApi + path;
  q.unix_socket = socket_;
  q.timeout_ms = timeout_ms;
  q.cancel = cancel;
  return q;
}

bool Client::Send(const http::Request& q, http::Response* response, std::string* err) const {
  *response = {};
  if (http::Perform(q, response, err)) return true;
  if (response->status == 0) *err = Unreachable(*err);
  return false;
}

std::string Client::Unreachable(const std::string& why) const {
  return "cannot reach the container engine at " + socket_ + ": " + why;
}

bool Client::Exchange(const http::Request& q, http::Response* response, std::string* err) const {
  if (!Send(q, response, err)) return false;
  if (Success(response->status)) return true;
  *err = ErrorMessage(*response);
  return false;
}

bool Client::Call(const std::string& method, const std::string& path, const std::string& body,
                  long timeout_ms, http::Response* response, std::string* err) const {
  http::Request q = NewRequest(method, path, timeout_ms);
  if (!body.empty()) {
    q.body = body;
    q.headers.push_back("Content-Type: application/json");
  }
  return Exchange(q, response, err);
}

bool Client::Create(const std::string& name, const nlohmann::json& config, std::string* id,
                    std::string* err) const {
  http::Response r;
  if (!Call("POST", "/containers/create?name=" + http::Escape(name), config.dump(), kLongCallMs,
            &r, err)) {
    // The API never pulls: an image the engine lacks is an error at once.
    if (r.status == 404)
      *err = "image '" + config.value("Image", "") + "' is not in the engine at " + socket_ + " (" +
             *err + "); fiber pulls nothing: load or build the image first";
    return false;
  }
  const auto answer = nlohmann::json::parse(r.body, nullptr, false);
  if (!answer.is_object() || !answer.contains("Id")) {
    *err = "the engine's answer to create has no Id: " + r.body.substr(0, 200);
    return false;
  }
  *id = answer["Id"].get<std::string>();
  return true;
}

bool Client::PutArchive(const std::string& id, const std::string& dir, const std::string& tar,
                        std::string* err) const {
  http::Request q = NewRequest("PUT", "/containers/" + id + "/archive?path=" + http::Escape(dir),
                               kLongCallMs);
  q.body = tar;
  q.headers.push_back("Content-Type: application/x-tar");
  http::Response r;
  return Exchange(q, &r, err);
}

bool Client::PathExists(const std::string& id, const std::string& path, bool* exists,
                        std::string* err) const {
  http::Response r;
  if (Call("HEAD", "/containers/" + id + "/archive?path=" + http::Escape(path), {}, kShortCallMs,
           &r, err)) {
    *exists = true;
    return true;
  }
  *exists = false;
  return r.status == 404;
}

bool Client::Start(const std::string& id, std::string* err) const {
  http::Response r;
  return Call("POST", "/containers/" + id + "/start", {}, kLongCallMs, &r, err);
}

bool Client::Kill(const std::string& id, std::string* err) const {
  http::Response r;
  // Not running (Docker: 409; Podman: "container state improper") or gone
  // (404): either way it runs no more.
  if (Call("POST", "/containers/" + id + "/kill?signal=KILL", {}, kShortCallMs, &r, err))
    return true;
  return r.status == 409 || r.status == 404 || err->find("state improper") != std::string::npos;
}

bool Client::Remove(const std::string& id, std::string* err) const {
  http::Response r;
  if (Call("DELETE", "/containers/" + id + "?force=1&v=1", {}, kShortCallMs, &r, err)) return true;
  // Docker answers 409 while it removes it already (HostConfig.AutoRemove).
  return r.status == 404 || (r.status == 409 && err->find("already in progress") != std::string::npos);
}

bool Client::Wait(const std::string& id, long timeout_ms, long* exit_code,
                  std::string* err) const {
  http::Response r;
  if (!Call("POST", "/containers/" + id + "/wait?condition=not-running", {}, timeout_ms, &r, err))
    return false;
  const auto answer = nlohmann::json::parse(r.body, nullptr, false);
  if (!answer.is_object() || !answer.contains("StatusCode")) {
    *err = "the engine's answer to wait has no StatusCode: " + r.body.substr(0, 200);
    return false;
  }
  *exit_code = answer["StatusCode"].get<long>();
  return true;
}

bool Client::List(const std::vector<std::string>& labels, std::vector<nlohmann::json>* out,
                  std::string* err) const {
  const nlohmann::json filters = {{"label", labels}};
  http::Response r;
  if (!Call("GET", "/containers/json?all=1&filters=" + http::Escape(filters.dump()), {},
            kShortCallMs, &r, err))
    return false;
  const auto answer = nlohmann::json::parse(r.body, nullptr, false);
  if (!answer.is_array()) {
    *err = "the engine's list of containers is not a JSON array";
    return false;
  }
  out->assign(answer.begin(), answer.end());
  return true;
}

}  // namespace fiber::engine
