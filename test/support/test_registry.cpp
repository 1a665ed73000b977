#include "support/test_registry.hpp"

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "http/client.hpp"
#include "subprocess.hpp"

namespace fiber::testing {

int FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
    port = ntohs(addr.sin_port);
  ::close(fd);
  return port;
}

TestRegistry::TestRegistry(const std::string& user, const std::string& password) {
  address_ = "127.0.0.1:" + std::to_string(FreePort());
  std::string auth;
  if (!user.empty()) {
    Child h = spawn({"/usr/bin/htpasswd", "-Bbn", user, password}, {});
    const std::string line = read_all(h.stdout_fd, 60);
    wait_exit(h, 60);
    dir_.write("htpasswd", line);
    auth = "auth: {htpasswd: {realm: fiber-test, path: " + dir_.path() + "/htpasswd}}\n";
  }
  const std::string config = dir_.write(
      "registry.yml", "version: 0.1\n"
                      "log: {level: error, accesslog: {disabled: true}}\n"
                      "storage: {filesystem: {rootdirectory: " + dir_.path() + "/data}}\n"
                      "http: {addr: " + address_ + "}\n" + auth);
  Child c = spawn({"/bin/sh", "-c", "exec docker-registry serve \"$0\" >\"$0.log\" 2>&1", config}, {});
  ::close(c.stdout_fd);
  ::close(c.stderr_fd);
  pid_ = c.pid;
  http::Request ping;
  ping.url = "http://" + address_ + "/v2/";
  ping.connect_timeout_ms = 1000;
  for (int i = 0; i < 600 && !ready_; ++i) {
    http::Response response;
    std::string err;
    ready_ = http::Perform(ping, &response, &err) && (response.status == 200 || response.status == 401);
    if (!ready_) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

TestRegistry::~TestRegistry() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  for (int i = 0; i < 100; ++i) {
    if (::waitpid(pid_, nullptr, WNOHANG) == pid_) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
}

}  // namespace fiber::testing
