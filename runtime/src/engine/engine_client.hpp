// The container engine's HTTP API (Docker's Engine API 1.41, which Podman's
// service speaks too) over its Unix socket, through http::Perform: the calls
// fiber makes, each turning the engine's error answer ({"message": ...}) into
// one line. The one client of the engine: used by the container backend, by
// fiber ps, logs and stop, and by the image code (loading, building, pruning
// images). Thread-safe: every call is its own exchange.
#pragma once

#include <atomic>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "os/environment.hpp"
#include "http/client.hpp"
#include "http/stream_set.hpp"

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
  /// Its output so far, stdout and stderr in the order written, handed
  /// over in pieces as it is read (a long log is never held whole); tail > 0
  /// keeps only the last tail lines. With timestamps, each line begins
  /// with when the engine got it (RFC 3339) and a space, as docker logs -t
  /// shows it.
  [[nodiscard]] bool Logs(const std::string& id, int tail,
                          const std::function<void(std::string_view)>& on_output,
                          std::string* err, bool timestamps = false) const;
  /// Its output from the start, handed over as it comes until the container
  /// stops, on_output returns false, or *cancel is set (when given); with
  /// timestamps as Logs.
  [[nodiscard]] bool FollowLogs(const std::string& id,
                                const std::function<bool(std::string_view)>& on_output,
                                std::string* err, const std::atomic<bool>* cancel = nullptr,
                                bool timestamps = false) const;
  /// Attaches to its stdout and stderr, as docker run does before it starts
  /// a container so that none of its output is missed, as one of streams'
  /// exchanges (on its thread): on_attached is called once the engine has
  /// attached, then its output is handed over as it comes until the
  /// container stops (or streams.Cancel), then on_end with "", or with the
  /// cause when the attach failed.
  http::StreamSet::Id Attach(http::StreamSet& streams, const std::string& id, std::function<void()> on_attached,
                             std::function<void(std::string_view)> on_output,
                             std::function<void(const std::string& err)> on_end) const;
  /// The engine's events about containers carrying every label, from
  /// `since` on (seconds since the epoch, "1700000000.123456789"), each
  /// handed over as it comes (a JSON object) until the stream ends or
  /// *cancel is set.
  [[nodiscard]] bool ContainerEvents(const std::vector<std::string>& labels,
                                     const std::string& since,
                                     const std::function<void(const nlohmann::json&)>& on_event,
                                     const std::atomic<bool>* cancel, std::string* err) const;
  /// POSTs the tar archive in the file archive_file to path, with no time
  /// limit (loading an image: "/images/load?quiet=1", building one:
  /// "/build?..."); the answer's JSON objects, one a line, go to on_message
  /// (when given) as they come. An object with "error" is the engine's
  /// failure: false with *err its text.
  [[nodiscard]] bool PostArchive(const std::string& path, const std::string& archive_file,
                                 const std::function<void(const nlohmann::json&)>& on_message,
                                 std::string* err) const;

 private:
  /// cancel: see http::Request::cancel.
  http::Request NewRequest(const std::string& method, const std::string& path, long timeout_ms,
                           const std::atomic<bool>* cancel = nullptr) const;
  /// Performs q; false with *err ("cannot reach the container engine at
  /// SOCKET: ...") when no answer came. Any status is true.
  [[nodiscard]] bool Send(const http::Request& q, http::Response* response,
                          std::string* err) const;
  /// Send, and false with the engine's message when the answer is not a
  /// success.
  [[nodiscard]] bool Exchange(const http::Request& q, http::Response* response,
                              std::string* err) const;
  /// A call whose successful answer is streamed (followed ones with no end
  /// of their own, timeout_ms 0): each chunk to on_chunk (false stops it),
  /// on_started first. The error answer's message in *err.
  [[nodiscard]] bool Stream(http::Request q, const std::function<void()>& on_started,
                            const std::function<bool(std::string_view)>& on_chunk,
                            std::string* err) const;
  /// What Stream's exchange ended with: true when answered with a
  /// success, else false with the engine's message or the reason none came.
  [[nodiscard]] bool StreamEnded(bool answered, http::Response r, const std::string& error_body,
                                 std::string* err) const;
  /// Stream for an answer of JSON objects one a line, each to on_object; a
  /// line longer than http::kMaxAnswerBytes is an error naming what the
  /// lines are ("an event").
  [[nodiscard]] bool JsonLines(http::Request q, const std::string& what,
                               const std::function<void(const nlohmann::json&)>& on_object,
                               std::string* err) const;
  std::string socket_;
  std::string kind_ = "docker";
};

}  // namespace fiber::engine
