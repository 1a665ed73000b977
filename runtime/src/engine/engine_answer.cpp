#include "engine/engine_answer.hpp"

#include <cctype>

namespace fiber::engine {

namespace {
// Of an error answer's body, what its message may take.
constexpr std::size_t kErrorBody = 4096;
}  // namespace

bool Success(long status) { return status >= 200 && status < 300; }

std::string ErrorMessage(const http::Response& response) {
  const auto json = nlohmann::json::parse(response.body, nullptr, false);
  if (json.is_object() && json.contains("message") && json["message"].is_string())
    return json["message"].get<std::string>();
  std::string body = response.body;
  while (!body.empty() && std::isspace(static_cast<unsigned char>(body.back()))) body.pop_back();
  return body.empty() ? "HTTP status " + std::to_string(response.status) : body;
}

std::string ErrorText(const nlohmann::json& error) {
  std::string text = error.is_string() ? error.get<std::string>() : error.dump();
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

void Streamed(http::Request* q, const std::shared_ptr<StreamAnswer>& a) {
  q->on_headers = [a](const http::Response& r) {
    a->ok = Success(r.status);
    if (a->ok && a->on_started) a->on_started();
  };
  q->on_body = [a](std::string_view chunk) {
    if (a->ok) return a->on_chunk(chunk);
    a->error_body.append(chunk.substr(0, kErrorBody));
    return a->error_body.size() < kErrorBody;
  };
}

}  // namespace fiber::engine
