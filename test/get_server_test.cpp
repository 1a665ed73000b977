// http/get_server: a real TCP client (libcurl, and a raw socket for what
// curl will not send) against the server polled on its own thread, as the
// master's I/O thread polls it.
#include "http/get_server.hpp"

#include <arpa/inet.h>
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <thread>
#include <vector>

#include "http/client.hpp"
#include "wire/poll.hpp"

using fiber::http::GetServer;

namespace {

// The server, served on a thread until destroyed.
struct Served {
  zmq::context_t context;
  std::atomic<int> pages{0};
  GetServer server{context, "/metrics", {"text/plain; version=0.0.4", [this] {
                                           ++pages;
                                           return std::string("up 1\n");
                                         }}};
  std::atomic<bool> stop{false};
  // Added to the clock the server is given: a test moves time on.
  std::atomic<int> later_s{0};
  std::atomic<std::size_t> waiting{0};  // the server's, after each turn
  std::thread thread;

  explicit Served(const std::string& host = "127.0.0.1") {
    std::string err;
    REQUIRE_MESSAGE(server.Listen(host, 0, &err), err);
    thread = std::thread([this] {
      while (!stop) {
        zmq::pollitem_t item{server.handle(), 0, ZMQ_POLLIN, 0};
        fiber::wire::Poll(&item, 1, std::chrono::milliseconds(20));
        const auto now = GetServer::Clock::now() + std::chrono::seconds(later_s.load());
        server.Serve(now);
        server.Sweep(now);
        waiting = server.waiting();
      }
    });
  }
  ~Served() {
    stop = true;
    thread.join();
  }
  std::string url(const std::string& path) const { return "http://" + server.address() + path; }
};

fiber::http::Response Get(const std::string& url, const std::string& method = "GET",
                          std::vector<std::string> headers = {}) {
  fiber::http::Request request;
  request.url = url;
  request.method = method;
  request.headers = std::move(headers);
  request.timeout_ms = 10000;
  fiber::http::Response response;
  std::string err;
  REQUIRE_MESSAGE(fiber::http::Perform(request, &response, &err), err);
  return response;
}

// A TCP connection to address ("host:port").
int Connect(const std::string& address) {
  const auto colon = address.rfind(':');
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(std::stoi(address.substr(colon + 1))));
  inet_pton(AF_INET, address.substr(0, colon).c_str(), &to.sin_addr);
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) == 0);
  return fd;
}

// Sends text on a raw TCP connection and reads until the server closes it.
std::string RawExchange(const std::string& address, const std::string& text, bool close_write = false) {
  const int fd = Connect(address);
  timeval limit{30, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  REQUIRE(write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
  if (close_write) shutdown(fd, SHUT_WR);
  std::string answer;
  char buffer[4096];
  for (ssize_t n; (n = read(fd, buffer, sizeof buffer)) > 0;) answer.append(buffer, static_cast<std::size_t>(n));
  close(fd);
  return answer;
}

}  // namespace

TEST_CASE("GET of the page answers 200 with its type and body, and closes") {
  Served served;
  const auto response = Get(served.url("/metrics"));
  CHECK(response.status == 200);
  CHECK(response.header("content-type") == "text/plain; version=0.0.4");
  CHECK(response.body == "up 1\n");
  CHECK(response.header("connection") == "close");
  // A query string is the same page; each request makes the page anew.
  CHECK(Get(served.url("/metrics?x=1")).body == "up 1\n");
  CHECK(served.pages == 2);
}

TEST_CASE("HEAD answers the headers only; other paths 404, other methods 405") {
  Served served;
  const auto head = Get(served.url("/metrics"), "HEAD");
  CHECK(head.status == 200);
  CHECK(head.body.empty());
  CHECK(Get(served.url("/")).status == 404);
  CHECK(Get(served.url("/metricsx")).status == 404);
  const auto post = Get(served.url("/metrics"), "POST");
  CHECK(post.status == 405);
  CHECK(post.header("allow") == "GET, HEAD");
}

TEST_CASE("a request sent in pieces is answered once whole") {
  Served served;
  const std::string answer = RawExchange(served.server.address(), "GET /met");
  // The rest never came and the client closed its side: nothing is
  // answered; a whole request in one piece is.
  CHECK(answer.empty());
  CHECK(RawExchange(served.server.address(), "GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").find("up 1") !=
        std::string::npos);
}

TEST_CASE("malformed and oversized requests get one error each, and the server goes on") {
  Served served;
  CHECK(RawExchange(served.server.address(), "hello\r\n\r\n").rfind("HTTP/1.1 400 ", 0) == 0);
  CHECK(RawExchange(served.server.address(), "GET /metrics\r\n\r\n").rfind("HTTP/1.1 400 ", 0) == 0);
  const std::string huge = "GET /metrics HTTP/1.1\r\nX: " + std::string(20000, 'a');
  CHECK(RawExchange(served.server.address(), huge).rfind("HTTP/1.1 431 ", 0) == 0);
  CHECK(Get(served.url("/metrics")).status == 200);
}

TEST_CASE("Answer: the request's text decides, with no socket") {
  zmq::context_t context;
  GetServer server(context, "/metrics", {"text/plain", [] { return std::string("b"); }});
  CHECK(server.Answer("GET /metrics HTTP/1.1\r\n").empty());  // headers not ended yet
  CHECK(server.Answer("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").find("\r\n\r\nb") != std::string::npos);
  CHECK(server.Answer("GET  HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").rfind("HTTP/1.1 404", 0) == 0);
  CHECK(server.Answer("GET /metrics FTP/1\r\n\r\n").rfind("HTTP/1.1 400", 0) == 0);
}

TEST_CASE("a request must name the server in its Host header: another name is refused, as a page "
          "rebinding its name to this machine would send it") {
  Served served;
  const std::string port = served.server.address().substr(served.server.address().rfind(':') + 1);
  CHECK(Get(served.url("/metrics"), "GET", {"Host: localhost:" + port}).status == 200);
  CHECK(Get(served.url("/metrics"), "GET", {"Host: LocalHost"}).status == 200);
  const auto misdirected = Get(served.url("/metrics"), "GET", {"Host: evil.example:" + port});
  CHECK(misdirected.status == 421);
  CHECK(misdirected.body == "this server does not answer to evil.example:" + port + "\n");
  CHECK(Get(served.url("/"), "GET", {"Host: evil.example"}).status == 421);  // says nothing of its paths
  const std::string request = "GET /metrics HTTP/1.1\r\n";
  CHECK(RawExchange(served.server.address(), request + "\r\n").rfind("HTTP/1.1 400 ", 0) == 0);
  CHECK(RawExchange(served.server.address(), request + "Host: 127.0.0.1\r\nHost: evil.example\r\n\r\n")
            .rfind("HTTP/1.1 400 ", 0) == 0);
  CHECK(RawExchange(served.server.address(), request + "hOsT:127.0.0.1\r\n\r\n").rfind("HTTP/1.1 200 ", 0) == 0);
  CHECK(served.pages == 3);
}

TEST_CASE("it listens on IPv6 loopback as [::1]") {
  Served served("::1");
  CHECK(served.server.address().rfind("[::1]:", 0) == 0);
  CHECK(Get(served.url("/metrics")).body == "up 1\n");
}

TEST_CASE("clients holding more idle connections than allowed never shut a scrape out; idle ones are "
          "closed soon") {
  Served served;
  std::vector<int> idle;
  for (std::size_t i = 0; i < GetServer::kMaxConnections + 16; ++i) idle.push_back(Connect(served.server.address()));
  for (int i = 0; i < 200 && served.waiting < GetServer::kMaxConnections; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  REQUIRE(served.waiting == GetServer::kMaxConnections);
  CHECK(Get(served.url("/metrics")).status == 200);
  CHECK(Get(served.url("/metrics")).status == 200);
  // Past the time a connection has to ask, none is held open.
  served.later_s += static_cast<int>(GetServer::kRequestTimeout.count()) + 1;
  for (int i = 0; i < 200 && served.waiting != 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK(served.waiting == 0);
  for (const int fd : idle) close(fd);
}

TEST_CASE("a port already taken is one error naming the address") {
  Served served;
  zmq::context_t context;
  GetServer second(context, "/metrics", {"text/plain", [] { return std::string(); }});
  const auto colon = served.server.address().rfind(':');
  std::string err;
  CHECK_FALSE(second.Listen("127.0.0.1", std::stoi(served.server.address().substr(colon + 1)), &err));
  CHECK(err.find("cannot listen on 127.0.0.1:") == 0);
}

TEST_CASE("more requests one after another than connections allowed at once are each answered") {
  // A connection the server answered and closed is gone from its count:
  // Prometheus scraping every second never finds the server full.
  Served served;
  const std::size_t requests = GetServer::kMaxConnections * 2 + 8;
  for (std::size_t i = 0; i < requests; ++i) REQUIRE(Get(served.url("/metrics")).status == 200);
  CHECK(served.pages == static_cast<int>(requests));
}

TEST_CASE("clients that leave early, before asking or before the answer, never stop the server answering") {
  // Seen: Prometheus's scrapes all timed out for good after a few hundred
  // requests, once an answer or a close had met a connection the client
  // had just closed.
  Served served;
  const std::string request = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 100; ++i) {
      const int fd = Connect(served.server.address());
      if (i % 3 == 1) REQUIRE(write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size()));
      if (i % 3 == 2) REQUIRE(write(fd, "GET /met", 8) == 8);  // half a request
      close(fd);
      REQUIRE(Get(served.url("/metrics")).status == 200);
    }
    // None of them is taken for one still waiting to ask, so none uses up
    // kMaxConnections.
    for (int i = 0; i < 100 && served.waiting != 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    CHECK(served.waiting == 0);
    // Past the time a connection has to ask: the server sweeps.
    served.later_s += 11;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    REQUIRE(Get(served.url("/metrics")).status == 200);
  }
}
