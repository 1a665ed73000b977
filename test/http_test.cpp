// http::Perform against a real HTTP server (test/programs/echo_http.py) on a
// loopback port and on a Unix socket, the two ways fiber reaches services.
#include <doctest/doctest.h>
#include <signal.h>

#include <atomic>
#include <fstream>
#include <nlohmann/json.hpp>

#include "http/client.hpp"
#include "subprocess.hpp"
#include "support/temp_dir.hpp"

namespace {

/// The echo server, stopped when the test ends.
struct EchoServer {
  Child child;
  int port = 0;
  explicit EchoServer(const std::string& unix_socket = "") {
    std::vector<std::string> argv{ECHO_HTTP};
    if (!unix_socket.empty()) argv.push_back(unix_socket);
    child = spawn(argv, {});
    const std::string line = read_line(child.stdout_fd, 30);
    REQUIRE(line.rfind("ready ", 0) == 0);
    port = std::stoi(line.substr(6));
  }
  ~EchoServer() {
    kill(child.pid, SIGKILL);
    wait_exit(child, 10);
  }
};

nlohmann::json Echoed(const fiber::http::Response& r) { return nlohmann::json::parse(r.body); }

}  // namespace

TEST_CASE("a request reaches a server on loopback with its method, path, headers and body") {
  EchoServer server;
  fiber::http::Request req;
  req.method = "POST";
  req.url = "http://127.0.0.1:" + std::to_string(server.port) + "/v2/a%20b?x=1";
  req.headers = {"X-Test: hello"};
  req.body = "payload";
  fiber::http::Response resp;
  std::string err;
  REQUIRE(fiber::http::Perform(req, &resp, &err));
  CHECK(resp.status == 200);
  CHECK(resp.header("x-reply") == "yes");
  CHECK(resp.header("Content-Type") == "application/json");
  auto echoed = Echoed(resp);
  CHECK(echoed["method"] == "POST");
  CHECK(echoed["path"] == "/v2/a%20b?x=1");
  CHECK(echoed["body"] == "payload");
  CHECK(echoed["x_test"] == "hello");
}

TEST_CASE("an HTTP error status is an answer, not a failure to connect") {
  EchoServer server;
  fiber::http::Request req;
  req.url = "http://127.0.0.1:" + std::to_string(server.port) + "/missing";
  fiber::http::Response resp;
  std::string err;
  REQUIRE(fiber::http::Perform(req, &resp, &err));
  CHECK(resp.status == 404);
}

TEST_CASE("a request reaches a server on a Unix socket, as the container engine listens") {
  fiber::testing::TempDir dir;
  const std::string socket = dir.path() + "/engine.sock";
  EchoServer server(socket);
  fiber::http::Request req;
  req.method = "DELETE";
  req.url = "http://engine/containers/abc";
  req.unix_socket = socket;
  fiber::http::Response resp;
  std::string err;
  REQUIRE(fiber::http::Perform(req, &resp, &err));
  CHECK(Echoed(resp)["method"] == "DELETE");
  CHECK(Echoed(resp)["path"] == "/containers/abc");
}

TEST_CASE("a large body is streamed from a file, and an answer can be read as it arrives") {
  EchoServer server;
  fiber::testing::TempDir dir;
  const std::string content(300000, 'z');
  const std::string file = dir.write("blob", content);
  fiber::http::Request req;
  req.method = "PUT";
  req.url = "http://127.0.0.1:" + std::to_string(server.port) + "/upload";
  req.body_file = file;
  std::string streamed;
  req.on_body = [&](std::string_view chunk) {
    streamed.append(chunk);
    return true;
  };
  fiber::http::Response resp;
  std::string err;
  REQUIRE(fiber::http::Perform(req, &resp, &err));
  CHECK(resp.body.empty());
  auto echoed = nlohmann::json::parse(streamed);
  CHECK(echoed["method"] == "PUT");
  CHECK(echoed["body"].get<std::string>().size() == content.size());
}

TEST_CASE("a stream the server holds open is seen to begin before any of its body, and can be cancelled") {
  EchoServer server;
  fiber::http::Request req;
  req.method = "POST";
  req.url = "http://127.0.0.1:" + std::to_string(server.port) + "/hold";
  req.timeout_ms = 0;
  std::atomic<bool> cancel{false};
  req.cancel = &cancel;
  long status_seen = 0;
  req.on_headers = [&](const fiber::http::Response& r) {
    status_seen = r.status;
    cancel = true;
  };
  req.on_body = [](std::string_view) { return true; };
  fiber::http::Response resp;
  std::string err;
  REQUIRE_MESSAGE(fiber::http::Perform(req, &resp, &err), err);
  CHECK(status_seen == 200);
  CHECK(resp.header("content-type") == "application/vnd.docker.raw-stream");
}

TEST_CASE("no server: one error that names where fiber tried to connect") {
  fiber::testing::TempDir dir;
  fiber::http::Request req;
  req.url = "http://engine/_ping";
  req.unix_socket = dir.path() + "/absent.sock";
  fiber::http::Response resp;
  std::string err;
  CHECK_FALSE(fiber::http::Perform(req, &resp, &err));
  CHECK(err.find(req.unix_socket) != std::string::npos);

  req.unix_socket.clear();
  req.url = "http://127.0.0.1:1/";  // nothing listens on port 1 here
  CHECK_FALSE(fiber::http::Perform(req, &resp, &err));
  CHECK(err.find("127.0.0.1:1") != std::string::npos);
}

TEST_CASE("Escape keeps unreserved characters and encodes the rest") {
  CHECK(fiber::http::Escape("run=abc-1.2_x~") == "run%3Dabc-1.2_x~");
  CHECK(fiber::http::Escape("{\"label\":[\"a b\"]}") == "%7B%22label%22%3A%5B%22a%20b%22%5D%7D");
}
