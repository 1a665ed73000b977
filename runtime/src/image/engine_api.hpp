// The few pieces of the engine's HTTP API that loading and building images
// share: the API's base URL over the socket, one exchange with the engine,
// and the engine's words for a failed call. (The container backend's
// engine client in engine/ is the full one; these are to merge with it.)
#pragma once

#include <string>

#include "http/client.hpp"

namespace fiber::image {

inline constexpr const char* kEngineApi = "http://engine/v1.41";

/// Performs request on the engine's socket; false with *err ("cannot
/// reach the container engine at SOCKET: ...") when no answer came.
[[nodiscard]] bool AskEngine(http::Request request, const std::string& socket,
                             http::Response* response, std::string* err);

/// The engine's JSON {"message": ...}, else the status and body.
std::string EngineMessage(const http::Response& response);

}  // namespace fiber::image
