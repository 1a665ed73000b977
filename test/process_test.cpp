// fiber::Process on real worker processes: what it runs, how it ends and
// the exit code each ending gives, plus the helpers and resources.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/resource.h>

#include <fiber/fiber.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include "process_probe.hpp"
#include "subprocess.hpp"
#include "support/connected_pid.hpp"
#include "support/temp_dir.hpp"
#include "tasks.hpp"

namespace {

void write_file(std::string path, std::string text) { std::ofstream(path) << text; }
FIBER_TASK(write_file);

void write_identity(std::string path) {
  const fiber::ProcessInfo me = fiber::current_process();
  std::ofstream(path) << me.id << " " << me.pid;
}
FIBER_TASK(write_identity);

void throw_runtime_error(std::string message) { throw std::runtime_error(message); }
FIBER_TASK(throw_runtime_error);

int allocate_mb(int mb) {
  std::vector<char> block(static_cast<std::size_t>(mb) << 20, 1);
  return block[block.size() / 2];
}
FIBER_TASK(allocate_mb);

long address_space_limit_mb(int) {
  struct rlimit limit {};
  getrlimit(RLIMIT_AS, &limit);
  return limit.rlim_cur == RLIM_INFINITY ? -1 : static_cast<long>(limit.rlim_cur >> 20);
}
FIBER_TASK(address_space_limit_mb);

void not_registered(int) {}

std::string start_process_in_worker(int) {
  try {
    fiber::Process(sleep_ms, 1).start();
  } catch (const fiber::Error& e) {
    return e.what();
  }
  return "started";
}
FIBER_TASK(start_process_in_worker);

std::string make_pool_in_worker(int) {
  try {
    fiber::Pool pool(1);
  } catch (const fiber::Error& e) {
    return e.what();
  }
  return "made";
}
FIBER_TASK(make_pool_in_worker);

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

// The live children of this process, whichever of its threads started them
// (/proc lists a child under the thread that made it).
std::set<long> live_children() {
  std::set<long> children;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream in(task.path() / "children");
    for (long pid; in >> pid;)
      if (process_alive(pid)) children.insert(pid);
  }
  return children;
}

// The parent of process pid (field 4 of /proc/PID/stat), or 0.
long parent_of(long pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line) || line.rfind(')') == std::string::npos) return 0;
  std::istringstream rest(line.substr(line.rfind(')') + 2));
  std::string state;
  long parent = 0;
  rest >> state >> parent;
  return parent;
}

}  // namespace

TEST_CASE("a Pool and four Processes on the local backend share one fork server: the master has one child process") {
  fiber::Pool pool(2);
  const long server = pool.apply(parent_pid_task);
  std::vector<fiber::Process> processes;
  for (int i = 0; i < 4; ++i) processes.emplace_back(sleep_ms, 600000);
  for (auto& p : processes) p.start();
  for (auto& p : processes) CHECK(parent_of(connected_pid(p)) == server);
  CHECK(live_children() == std::set<long>{server});
  for (auto& p : processes) p.terminate();
  for (auto& p : processes) p.join();
}

TEST_CASE("a Process runs its function with its arguments and exits 0") {
  fiber::testing::TempDir dir;
  const std::string path = dir.path() + "/out";
  fiber::Process p(write_file, path, std::string("hello"));
  CHECK_FALSE(p.exitcode().has_value());
  CHECK_FALSE(p.is_alive());
  p.start();
  p.join();
  CHECK(p.exitcode() == 0);
  CHECK_FALSE(p.is_alive());
  CHECK(read_file(path) == "hello");
}

TEST_CASE("a Process whose function throws exits 1") {
  fiber::Process p(throw_runtime_error, std::string("boom"));
  p.start();
  p.join();
  CHECK(p.exitcode() == 1);
}

TEST_CASE("a killed Process reports minus the signal number") {
  fiber::Process p(sleep_ms, 600000);
  p.start();
  CHECK(p.is_alive());
  CHECK_FALSE(p.exitcode().has_value());  // running
  ::kill(static_cast<pid_t>(connected_pid(p)), SIGKILL);
  p.join();
  CHECK(p.exitcode() == -SIGKILL);
  CHECK_FALSE(p.is_alive());
}

TEST_CASE("terminate ends a running Process; join with a timeout says whether it ended") {
  fiber::Process p(sleep_ms, 600000);
  p.start();
  CHECK_FALSE(p.join(std::chrono::milliseconds(1)));
  CHECK_FALSE(p.join(0.001));  // seconds, as multiprocessing's join(0.001)
  CHECK_THROWS_WITH_AS(p.join(-1), doctest::Contains("Process::join: timeout must be"),
                       fiber::Error);
  p.terminate();
  CHECK(p.join(std::chrono::seconds(60)));
  CHECK(p.join(60));
  CHECK(p.exitcode() == -SIGKILL);
}

TEST_CASE("Processes are movable and have ids unique within the run") {
  fiber::testing::TempDir dir;
  std::vector<fiber::Process> processes;
  for (int i = 0; i < 3; ++i)
    processes.emplace_back(write_identity, dir.path() + "/" + std::to_string(i));
  for (auto& p : processes) p.start();
  std::set<std::string> ids;
  for (std::size_t i = 0; i < processes.size(); ++i) {
    processes[i].join();
    CHECK(processes[i].exitcode() == 0);
    ids.insert(processes[i].id());
    // current_process() in the child names the same process.
    std::istringstream identity(read_file(dir.path() + "/" + std::to_string(i)));
    std::string id;
    long pid = 0;
    identity >> id >> pid;
    CHECK(id == processes[i].id());
    CHECK(pid == processes[i].pid());
  }
  CHECK(ids.size() == 3);
}

TEST_CASE("active_children lists the Processes running; current_process in the master") {
  fiber::ProcessOptions options;
  options.name = "sleeper";
  fiber::Process p(options, sleep_ms, 600000);
  CHECK(fiber::active_children().empty());
  p.start();
  const auto children = fiber::active_children();
  REQUIRE(children.size() == 1);
  CHECK(children[0].name == "sleeper");
  CHECK(children[0].id == p.id());
  p.kill();
  p.join();
  CHECK(fiber::active_children().empty());
  CHECK(fiber::current_process().name == "MainProcess");
  CHECK(fiber::cpu_count() >= 1);
}

TEST_CASE("misuse is a clear error") {
  CHECK_THROWS_WITH_AS(fiber::Process(not_registered, 1), doctest::Contains("FIBER_TASK"),
                       fiber::NotRegistered);
  fiber::Process p(sleep_ms, 1);
  CHECK_THROWS_AS(p.join(), fiber::Error);
  p.start();
  CHECK_THROWS_WITH_AS(p.start(), doctest::Contains("only once"), fiber::Error);
  p.join();
  CHECK(p.exitcode() == 0);
  // Only the master starts processes: a worker would start a run of its own.
  fiber::Pool pool(1);
  CHECK(pool.apply(start_process_in_worker, 0).find("only by the run's master") != std::string::npos);
  // A Pool in a task is the same mistake and gets the same message, not
  // "call fiber::init first".
  const std::string pool_error = pool.apply(make_pool_in_worker, 0);
  CHECK(pool_error.find("only by the run's master") != std::string::npos);
  CHECK(pool_error.find("fiber::init") == std::string::npos);
}

TEST_CASE("Resources.memory_mb bounds a local worker's address space") {
  if (kAddressSanitizer) return;  // ASan reserves terabytes of address space
  fiber::ProcessOptions limited;
  limited.resources.memory_mb = 512;
  fiber::Process p(limited, allocate_mb, 2048);
  p.start();
  p.join();
  CHECK(p.exitcode() == 1);  // std::bad_alloc
  fiber::PoolOptions options;
  options.processes = 1;
  options.resources.memory_mb = 700;
  fiber::Pool pool(options);
  CHECK(pool.apply(address_space_limit_mb, 0) == 700);
}

TEST_CASE("a run whose Processes and Manager all succeed prints no error") {
  // The README's example, as a user runs it, several times: a Process's
  // worker that ends once its call is done is no loss.
  for (int run = 0; run < 3; ++run) {
    Child c = spawn({built_program("readme_processes")}, {}, {});
    const std::string out = read_all(c.stdout_fd, 120);
    const std::string err = read_all(c.stderr_fd, 120);
    CHECK(wait_exit(c, 120) == 0);
    CHECK(out == "exitcode 0\nexitcode 0\nexitcode 0\nexitcode 0\nsize 100\n");
    CHECK_MESSAGE(err.find("error") == std::string::npos, err);
    CHECK_MESSAGE(err.find("lost") == std::string::npos, err);
  }
}
