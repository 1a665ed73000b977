// http::Perform against a real HTTP server (test/programs/echo_http.py) on a
// loopback port and on a Unix socket, the two ways fiber reaches services.
#include <doctest/doctest.h>
#include <signal.h>

#include <atomic>
#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/engine_client.hpp"
#include "engine/engine_streams.hpp"
#include "http/client.hpp"
#include "http/line_stream.hpp"
#include "subprocess.hpp"
#include "support/echo_server.hpp"
#include "support/temp_dir.hpp"

using fiber::testing::EchoServer;

namespace {

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

TEST_CASE("an answer with no end is one error naming the service, not all of memory") {
  EchoServer server;
  fiber::http::Request req;
  req.url = "http://127.0.0.1:" + std::to_string(server.port) + "/endless";
  req.timeout_ms = 0;  // only the bound ends it
  fiber::http::Response resp;
  std::string err;
  CHECK_FALSE(fiber::http::Perform(req, &resp, &err));
  CHECK(err == req.url + ": the answer is larger than 64 MiB, more than fiber reads of one answer");
  CHECK(resp.body.size() <= fiber::http::kMaxAnswerBytes);
}

TEST_CASE("an engine event stream whose line never ends is one error naming the engine") {
  fiber::testing::TempDir dir;
  const std::string socket = dir.path() + "/engine.sock";
  EchoServer server(socket);
  const fiber::engine::Client engine(socket);
  int events = 0;
  std::string err;
  CHECK_FALSE(fiber::engine::ContainerEvents(engine, {"fiber.run=x"}, "0", [&](const nlohmann::json&) { ++events; },
                                     nullptr, &err));
  CHECK(err == "the container engine at " + socket + " sent an event of more than 64 MiB");
  CHECK(events == 0);
}

TEST_CASE("a streamed line with no end stops at the bound; whole lines pass") {
  fiber::http::LineStream lines;
  std::vector<std::string> got;
  const auto keep = [&](std::string_view line) {
    got.emplace_back(line);
    return true;
  };
  CHECK(lines.Feed("{\"a\":1}\n{\"b\"", keep));
  CHECK(lines.Feed(":2}\n", keep));
  CHECK(got == std::vector<std::string>{"{\"a\":1}", "{\"b\":2}"});
  const std::string piece(1 << 20, 'x');
  bool fed = true;
  for (std::size_t sent = 0; fed && sent <= 2 * fiber::http::kMaxAnswerBytes; sent += piece.size())
    fed = lines.Feed(piece, keep);
  CHECK_FALSE(fed);
  CHECK(lines.overflowed());
  CHECK(lines.rest().size() <= fiber::http::kMaxAnswerBytes);
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
