// The metrics setting, as a user runs it: fiber run --metrics ADDR serves
// Prometheus's text at /metrics, which promtool accepts and a real
// Prometheus server (Debian's prometheus package, started here on loopback)
// scrapes, its numbers matching what the program did; on a shared machine,
// only where the user said (loopback unless a host is named), only to
// requests that name it, and to a scrape however many connections others
// hold idle.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <iterator>
#include <vector>

#include "http/get_server.hpp"

#include "http/client.hpp"
#include "support/fiber_command.hpp"
#include "support/loopback_port.hpp"
#include "support/metrics_page.hpp"

using fiber::testing::eventually;
using fiber::testing::Fiber;
using fiber::testing::FreeLoopbackPort;
using fiber::testing::Get;
using fiber::testing::SumOf;
using fiber::testing::TempDir;

namespace {

std::string Contents(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A Prometheus server scraping target every second, on a port of its own,
// its data in a directory of the test's; stopped when destroyed.
struct Prometheus {
  TempDir dir;
  int port = FreeLoopbackPort();
  Child child;
  explicit Prometheus(const std::string& target) {
    std::ofstream(dir.path() + "/prometheus.yml")
        << "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
           "scrape_configs:\n  - job_name: fiber\n    static_configs:\n      - targets: ['"
        << target << "']\n";
    // Its log to a file: a closed pipe would end it at its first line.
    child = spawn({"/bin/sh", "-c",
                   "exec /usr/bin/prometheus --config.file=\"$1/prometheus.yml\" --storage.tsdb.path=\"$1/data\" "
                   "--web.listen-address=127.0.0.1:$2 > \"$1/log\" 2>&1",
                   "prometheus", dir.path(), std::to_string(port)},
                  {});
    ::close(child.stdout_fd);
    ::close(child.stderr_fd);
    REQUIRE_MESSAGE(eventually([&] { return Get(url("/-/ready")).first == 200; }, 60),
                    "Prometheus did not become ready: " << Contents(dir.path() + "/log"));
  }
  ~Prometheus() {
    ::kill(child.pid, SIGTERM);
    (void)wait_exit(child, 30);
  }
  std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port) + path; }
  // The one value of an instant query, or NaN while it has none.
  double Query(const std::string& promql) {
    const auto [status, body] = Get(url("/api/v1/query?query=" + fiber::http::Escape(promql)));
    if (status != 200) return NAN;
    const auto j = nlohmann::json::parse(body, nullptr, false);
    if (j.is_discarded() || j["data"]["result"].empty()) return NAN;
    return std::stod(j["data"]["result"][0]["value"][1].get<std::string>());
  }
  // What its scrapes of the target last said: its health and last error.
  std::string Scrapes() {
    const auto [status, body] = Get(url("/api/v1/targets"));
    const auto j = nlohmann::json::parse(body, nullptr, false);
    if (status != 200 || j.is_discarded() || j["data"]["activeTargets"].empty()) return "no target (" + body + ")";
    const auto& t = j["data"]["activeTargets"][0];
    return t.value("health", "?") + " " + t.value("lastError", "") + "; its log:\n" + Contents(dir.path() + "/log");
  }
};

// fiber run --metrics address of metrics_map, its map done; it ends when
// this is destroyed.
struct MapDone {
  TempDir dir;
  Child run;
  MapDone(Fiber& fiber, const std::string& address) {
    run = fiber.Start({"run", "--metrics", address, built_program("metrics_map"), "1", "4", dir.path() + "/done"});
    const std::string line = read_line(run.stdout_fd, 120);
    REQUIRE_MESSAGE(line.rfind("done ", 0) == 0, "the program printed: " << line << read_all(run.stderr_fd, 5));
  }
  ~MapDone() {
    std::ofstream(dir.path() + "/done") << "";
    CHECK(wait_exit(run, 60) == 0);
  }
};

std::string Url(const std::string& host, int port) { return "http://" + host + ":" + std::to_string(port) + "/metrics"; }

// A TCP connection to 127.0.0.1:port that sends nothing.
int Idle(int port) {
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(port));
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) == 0);
  return fd;
}

}  // namespace

TEST_CASE("--metrics :PORT listens on loopback alone, answers only requests that name it, and a scrape "
          "gets through however many idle connections other users hold") {
  Fiber fiber;
  const int port = FreeLoopbackPort();
  MapDone map(fiber, ":" + std::to_string(port));
  CHECK(Get(Url("127.0.0.1", port)).first == 200);
  CHECK(Get(Url("localhost", port)).first == 200);
  // Another address of this machine's loopback network is not listened on
  // (every address would be).
  CHECK(Get(Url("127.0.0.2", port)).first == 0);
  // A page of evil.example that a browser resolved to 127.0.0.1 (DNS
  // rebinding) says so in its Host header.
  CHECK(Get(Url("127.0.0.1", port), {"Host: evil.example:" + std::to_string(port)}).first == 421);
  // Connections held open without asking: more than the server keeps.
  std::vector<int> idle;
  for (std::size_t i = 0; i < fiber::http::GetServer::kMaxConnections + 8; ++i) idle.push_back(Idle(port));
  const auto [status, text] = Get(Url("127.0.0.1", port));
  CHECK(status == 200);
  CHECK(SumOf(text, "fiber_tasks_completed_total") == 4);
  for (const int fd : idle) ::close(fd);
}

TEST_CASE("a named host opts in: [::1]:PORT serves over IPv6, 0.0.0.0:PORT on every address") {
  Fiber fiber;
  const int port = FreeLoopbackPort();
  {
    MapDone map(fiber, "[::1]:" + std::to_string(port));
    CHECK(Get(Url("[::1]", port)).first == 200);
    CHECK(Get(Url("127.0.0.1", port)).first == 0);
  }
  MapDone map(fiber, "0.0.0.0:" + std::to_string(port));
  CHECK(Get(Url("127.0.0.2", port)).first == 200);
  CHECK(Get(Url("127.0.0.2", port), {"Host: evil.example"}).first == 421);
}

TEST_CASE("fiber run --metrics serves /metrics that promtool accepts and Prometheus scrapes") {
  Fiber fiber;
  TempDir dir;
  const int port = FreeLoopbackPort();
  const std::string address = "127.0.0.1:" + std::to_string(port);
  const std::string done = dir.path() + "/done";
  constexpr int kTasks = 60;
  Prometheus prometheus(address);

  Child run = fiber.Start({"run", "--metrics", address, built_program("metrics_map"), "2",
                           std::to_string(kTasks), done});
  const std::string line = read_line(run.stdout_fd, 120);
  REQUIRE_MESSAGE(line.rfind("done ", 0) == 0, "the program printed: " << line << read_all(run.stderr_fd, 5));

  // The page, as it stands once the map is done.
  const auto [status, text] = Get("http://" + address + "/metrics");
  REQUIRE(status == 200);
  const auto [lint_status, lint] = fiber::testing::Promtool(text, dir);
  CHECK_MESSAGE(lint_status == 0, lint << "\n" << text);
  CHECK(SumOf(text, "fiber_tasks_completed_total") == kTasks);
  CHECK(SumOf(text, "fiber_tasks_submitted_total") == kTasks);
  CHECK(SumOf(text, "fiber_tasks_failed_total") == 0);
  CHECK(SumOf(text, "fiber_task_duration_seconds_count") == kTasks);
  CHECK(SumOf(text, "fiber_workers_started_total") >= 2);

  // Prometheus sees the same, with counters that never went down.
  CHECK_MESSAGE(eventually([&] { return prometheus.Query("sum(fiber_tasks_completed_total)") == kTasks; }, 60),
                "Prometheus last saw " << prometheus.Query("sum(fiber_tasks_completed_total)") << ", scrapes "
                                       << prometheus.Scrapes());
  CHECK(prometheus.Query("sum(fiber_task_duration_seconds_count)") == kTasks);
  CHECK(prometheus.Query("sum(resets(fiber_tasks_completed_total[5m]))") == 0);
  CHECK(prometheus.Query("up{job=\"fiber\"}") == 1);

  std::ofstream(done) << "";
  CHECK(wait_exit(run, 60) == 0);
  // The run is over: nothing listens there any more.
  CHECK(Get("http://" + address + "/metrics").first == 0);
}

TEST_CASE("a metrics address that is malformed or taken is one error, and nothing runs") {
  Fiber fiber;
  TempDir dir;
  for (const std::string bad : {"nowhere", "1.2.3.4:99999", "::1:9100", "host:port"}) {
    auto [status, out, err] = fiber.Run({"run", "--metrics", bad, built_program("metrics_map"), "1", "1", "x"});
    CHECK(status == 125);
    CHECK_MESSAGE(err.find("metrics") != std::string::npos, err);
    CHECK_MESSAGE(err.find("is not HOST:PORT") != std::string::npos, err);
    CHECK(out.empty());
  }
  // Taken: the run fails before any worker starts, naming the address.
  int port = 0;
  const int taken = fiber::testing::ListenOnLoopback(&port);
  const std::string address = "127.0.0.1:" + std::to_string(port);
  auto [status, out, err] = fiber.Run({"run", "--metrics", address, built_program("metrics_map"), "1", "3",
                                       dir.path() + "/done"});
  ::close(taken);
  CHECK(status != 0);
  CHECK_MESSAGE(err.find("metrics: cannot listen on " + address) != std::string::npos, err);
  CHECK(out.find("done") == std::string::npos);
}
