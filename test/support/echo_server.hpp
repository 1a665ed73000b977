// test/programs/echo_http.py for one test, on a free loopback port or on a
// Unix socket (as a container engine listens), stopped when the test ends.
// The test's executable defines ECHO_HTTP, the script's path.
#pragma once

#include <doctest/doctest.h>
#include <signal.h>

#include <string>
#include <vector>

#include "subprocess.hpp"

namespace fiber::testing {

struct EchoServer {
  Child child;
  int port = 0;  // 0 on a Unix socket
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
  EchoServer(const EchoServer&) = delete;
  EchoServer& operator=(const EchoServer&) = delete;
};

}  // namespace fiber::testing
