// How the container engine's answers read: a success, the engine's error
// message, and a streamed answer (its chunks handed on once the status says
// success; of an error answer, the start of its body kept for the
// message). For engine/engine_client.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "http/client.hpp"

namespace fiber::engine {

bool Success(long status);

/// The engine's message in an error answer ({"message": "..."}), else the
/// body itself (trimmed), else the HTTP status.
std::string ErrorMessage(const http::Response& response);

/// The text of {"error": ...} in an answer of JSON lines.
std::string ErrorText(const nlohmann::json& error);

struct StreamAnswer {
  bool ok = false;  // the status said success
  std::string error_body;
  std::function<void()> on_started;
  std::function<bool(std::string_view)> on_chunk;
};

/// Sets q's callbacks to fill a, which they share.
void Streamed(http::Request* q, const std::shared_ptr<StreamAnswer>& a);

}  // namespace fiber::engine
