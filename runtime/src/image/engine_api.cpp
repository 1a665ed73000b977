#include "image/engine_api.hpp"

#include <nlohmann/json.hpp>

namespace fiber::image {

bool AskEngine(http::Request request, const std::string& socket, http::Response* response,
               std::string* err) {
  request.unix_socket = socket;
  if (http::Perform(request, response, err)) return true;
  *err = "cannot reach the container engine at " + socket + ": " + *err;
  return false;
}

std::string EngineMessage(const http::Response& response) {
  const auto body = nlohmann::json::parse(response.body, nullptr, false);
  if (body.is_object() && body.contains("message") && body["message"].is_string())
    return body["message"].get<std::string>();
  return "HTTP " + std::to_string(response.status) + " " + response.body;
}

}  // namespace fiber::image
