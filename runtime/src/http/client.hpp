// One HTTP exchange through libcurl, for every service fiber talks to: the
// container engine (over its Unix socket), image registries and the
// Kubernetes API server (over TCP, with TLS when the URL says https).
// Thread-safe: each call uses its own handle.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace fiber::http {

/// The most fiber keeps of one answer (its body, its headers) or of one line
/// of a stream (a watch event, an engine event): far beyond any honest
/// answer of a registry, token service, API server or engine (lists come in
/// pages), and small enough that a broken or hostile service cannot make
/// fiber run out of memory. More is an error naming the service.
inline constexpr std::size_t kMaxAnswerBytes = 64 << 20;

struct Response;

struct Request {
  std::string method = "GET";
  /// The whole URL; over a Unix socket its host is ignored
  /// ("http://engine/v1.41/containers/json").
  std::string url;
  /// Non-empty: connect to this Unix socket instead of the URL's host.
  std::string unix_socket;
  std::vector<std::string> headers;  // "Name: value"
  std::string body;
  /// Streams the body from this file instead of `body` (large uploads).
  std::string body_file;
  /// Limits in milliseconds; 0 is none (a long wait or a followed stream).
  long connect_timeout_ms = 5000;
  long timeout_ms = 60000;
  /// TLS, for https URLs: trusted CAs as PEM text (empty: the system's),
  /// a client certificate and key as PEM text, or no verification at all.
  std::string ca_pem;
  std::string client_cert_pem;
  std::string client_key_pem;
  bool insecure_skip_verify = false;
  /// Set: the body is handed over as it arrives, not kept in Response::body;
  /// returning false stops the exchange (Perform then still returns true).
  /// The Response's status and headers are set before the first chunk.
  std::function<bool(std::string_view chunk)> on_body;
  /// Set: called once the final response's status and headers are in,
  /// before any of its body (a stream the server holds open has begun).
  std::function<void(const Response&)> on_headers;
  /// Set: another thread may end the exchange by setting it true (seen
  /// within about a second, also while nothing arrives); Perform then
  /// returns true, as when on_body stops it.
  const std::atomic<bool>* cancel = nullptr;
};

struct Response {
  long status = 0;
  /// Header names in lower case; a repeated header keeps its last value.
  std::map<std::string, std::string> headers;
  std::string body;
  /// The header's value, or "" when absent (name in any case).
  std::string header(std::string_view name) const;
};

/// Performs the exchange. False with *err (curl's reason, naming the host
/// or socket) when no HTTP answer came at all, or when its headers or its
/// body (unless on_body takes it) pass kMaxAnswerBytes; any HTTP status is
/// true.
[[nodiscard]] bool Perform(const Request& request, Response* response, std::string* err);

/// Percent-encodes text for a URL's path segment or query value.
std::string Escape(std::string_view text);

}  // namespace fiber::http
