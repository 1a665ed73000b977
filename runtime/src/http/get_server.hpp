// A tiny HTTP/1.1 server for one read-only page (the master's /metrics): a
// ZeroMQ STREAM socket, so the owner's poll loop serves it with no thread of
// its own. Each connection gets one answer and is closed (Connection:
// close). A request must name the server in its Host header
// (http/host_header.hpp: no DNS rebinding from a browser). Connections that
// do not ask are closed soon, and the oldest of them at once when a new one
// would pass the limit, so clients holding connections idle never shut a
// scrape out. Knows nothing of fiber. Not thread-safe: one thread owns it.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>
#include <zmq.hpp>

namespace fiber::http {

class GetServer {
 public:
  using Clock = std::chrono::steady_clock;
  /// The page: its content type and body, made when asked.
  struct Page {
    std::string content_type;
    std::function<std::string()> body;
  };
  /// The most of one request kept (its request line and headers).
  static constexpr std::size_t kMaxRequestBytes = 8192;
  /// The most connections open at once: a new one past it closes the
  /// oldest that has not asked yet.
  static constexpr std::size_t kMaxConnections = 64;
  /// A connection that has not sent a whole request by then is closed (a
  /// scraper sends its request as it connects).
  static constexpr std::chrono::seconds kRequestTimeout{5};

  /// Serves page at path (e.g. "/metrics").
  GetServer(zmq::context_t& context, std::string path, Page page);

  /// Listens on host:port ("127.0.0.1", "::1", "0.0.0.0", a name or a
  /// network interface; port 0: any free one); false with *err naming the
  /// address. Requests are answered when their Host names it.
  [[nodiscard]] bool Listen(const std::string& host, int port, std::string* err);
  /// "host:port" it listens on.
  const std::string& address() const { return address_; }
  void* handle() { return socket_.handle(); }
  /// Reads what arrived and answers every whole request; call when readable.
  void Serve(Clock::time_point now);
  /// Closes connections that took too long to ask.
  void Sweep(Clock::time_point now);
  /// Connections open that have not been answered.
  std::size_t waiting() const { return open_.size(); }

  /// The answer to one request's text (request line and headers); empty
  /// when more must be read first. Pure: for tests (before Listen, a Host
  /// names it only as an address).
  std::string Answer(const std::string& request) const;

 private:
  struct Connection {
    std::string request;
    Clock::time_point opened;
  };
  void Close(const std::string& id, Clock::time_point now);
  void Send(const std::string& id, const std::string& data);

  zmq::socket_t socket_;
  std::string path_;
  Page page_;
  std::string address_;
  std::vector<std::string> names_;  // what a Host header may name but addresses
  std::map<std::string, Connection> open_;
  // Connections closed here, for kRequestTimeout: the peer's own close of
  // one, told when it raced ours, is not a new connection (ids are never
  // reused).
  std::map<std::string, Clock::time_point> closed_;
};

}  // namespace fiber::http
