// The container engine's HTTP API (Docker's Engine API 1.41, which Podman's
// service speaks too) over its Unix socket, through http::Perform: the calls
// answered at once, each turning the engine's error answer ({"message": ...})
// into one line; those whose answer is a stream are engine/engine_streams.hpp. The one client of the engine: used by the container backend, by
// fiber ps, logs and stop, and by the image code (loading, building, pruning
// images). Thread-safe: every call is its own exchange.
#pragma once

#include <atomic>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "os/environment.hpp"
#include "http/client.hpp"

namespace fiber::engine {

/// Limits of a call that must not hold up its caller long (the master's
/// I/O thread, a command): a few seconds, as the engine answers these at once.
inline constexpr long kShortCallMs = 5000;
/// Creating or starting a container may take the engine a while.
inline constexpr long kLongCallMs = 60000;

class Client {
 public:
  Client() = default;
  explicit Client(std::string socket) : socket_(std::move(socket)) {}

  /// Finds the engine's socket (engine/engine_socket.hpp) and asks its
  /// version, waiting up to timeout_ms; false with *err naming the cause
  /// (no engine, no permission, nothing answering).
  [[nodiscard]] static bool Connect(const std::string& engine, const os::Getenv& getenv,
                                    Client* out, std::string* err, long timeout_ms = kShortCallMs);

  const std::string& socket() const { return socket_; }
  /// "docker" or "podman", from the version's components (after Connect).
  const std::string& kind() const { return kind_; }

  /// One call; path after the API version ("/containers/json"). False with
  /// *err when no answer came ("cannot reach the container engine at
  /// SOCKET: ...") or the answer is not a success (the engine's message);
  /// *response holds the answer either way.
  [[nodiscard]] bool Call(const std::string& method, const std::string& path,
                          const std::string& body, long timeout_ms, http::Response* response,
                          std::string* err) const;

  /// Creates a container named name; *id is its id.
  [[nodiscard]] bool Create(const std::string& name, const nlohmann::json& config,
                            std::string* id, std::string* err) const;
  /// Unpacks tar (engine/tar_writer.hpp) into the container at dir.
  [[nodiscard]] bool PutArchive(const std::string& id, const std::string& dir,
                                const std::string& tar, std::string* err) const;
  /// Whether path exists in the container's filesystem.
  [[nodiscard]] bool PathExists(const std::string& id, const std::string& path, bool* exists,
                                std::string* err) const;
  [[nodiscard]] bool Start(const std::string& id, std::string* err) const;
  /// SIGKILL; a container that is not running is no error.
  [[nodiscard]] bool Kill(const std::string& id, std::string* err) const;
  /// Removes it, running or not; one already gone or going is no error.
  [[nodiscard]] bool Remove(const std::string& id, std::string* err) const;
  /// Waits (up to timeout_ms) until it is not running; its exit code.
  [[nodiscard]] bool Wait(const std::string& id, long timeout_ms, long* exit_code,
                          std::string* err) const;
  /// Containers (running or not) carrying every label ("key=value").
  [[nodiscard]] bool List(const std::vector<std::string>& labels, std::vector<nlohmann::json>* out,
                          std::string* err) const;

  /// The streamed calls' pieces (engine/engine_streams.hpp). cancel: see
  /// http::Request::cancel.
  http::Request NewRequest(const std::string& method, const std::string& path, long timeout_ms,
                           const std::atomic<bool>* cancel = nullptr) const;
  /// why, as the error of a call that got no answer: "cannot reach the
  /// container engine at SOCKET: why".
  std::string Unreachable(const std::string& why) const;

 private:
  /// Performs q; false with *err (Unreachable) when no answer came. Any
  /// status is true.
  [[nodiscard]] bool Send(const http::Request& q, http::Response* response,
                          std::string* err) const;
  /// Send, and false with the engine's message when the answer is not a
  /// success.
  [[nodiscard]] bool Exchange(const http::Request& q, http::Response* response,
                              std::string* err) const;
  std::string socket_;
  std::string kind_ = "docker";
};

}  // namespace fiber::engine
