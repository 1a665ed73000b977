// What a worker's host sees of its master's machine, and that data reaches
// it and comes back either way: a master whose pool of N workers runs 4
// tasks per worker, once every worker is ready, each saying what its host
// sees, and prints one line per host, sorted:
// "HOST proc=P memfd=M shm=S tmp=T share=HOW", P, M, S, T 1 when the worker
// saw it: the master's process in /proc (its command line), one of its
// memfds through /proc/PID/fd, and a file the master made in /dev/shm and
// in /tmp; HOW how the worker loaded a 4 MiB fiber::share ("mapped" from the
// master's memory, "fetched" over the connection). On the master's own
// machine: all 1, mapped; on a host apart: all 0, fetched. Each task also
// puts a 2 MiB item in a queue, which the master reads back whole: then a
// last line "items N ok".
#include <fiber/fiber.hpp>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

namespace {

std::string WholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return in ? std::string(std::istreambuf_iterator<char>(in), {}) : std::string("\x01missing");
}

bool Exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

}  // namespace

// What this worker's host sees of the master's (the master's pid, its
// command line, its memfd's path and the name of its marker files).
std::string what_i_see(long master, std::string cmdline, std::string memfd, std::string marker,
                       fiber::Shared<std::string> big, fiber::Queue<std::string> back) {
  const bool whole = big.get() == std::string(4 << 20, 'v');
  const fiber::detail::SharedLoads loads = fiber::detail::shared_loads();
  back.put(std::string(2 << 20, 'i'));
  char host[256] = {};
  (void)::gethostname(host, sizeof host - 1);
  const bool proc = WholeFile("/proc/" + std::to_string(master) + "/cmdline") == cmdline;
  std::ostringstream line;
  line << host << " proc=" << proc << " memfd=" << (WholeFile(memfd) == marker)
       << " shm=" << Exists("/dev/shm/" + marker) << " tmp=" << Exists("/tmp/" + marker) << " share="
       << (!whole ? "wrong" : loads.mapped && !loads.fetched ? "mapped" : loads.fetched && !loads.mapped ? "fetched" : "both");
  return line.str();
}
FIBER_TASK(what_i_see);

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 2;
  const std::string marker = "fiber-host-view-" + std::to_string(::getpid());
  std::ofstream(std::string("/dev/shm/") + marker) << marker;
  std::ofstream(std::string("/tmp/") + marker) << marker;
  const int fd = ::memfd_create(marker.c_str(), 0);
  if (fd < 0 || ::write(fd, marker.data(), marker.size()) != static_cast<ssize_t>(marker.size())) return 3;
  const std::string memfd = "/proc/" + std::to_string(::getpid()) + "/fd/" + std::to_string(fd);
  {
    fiber::Pool pool(n);
    for (int ready = 0; ready < n;) {
      ready = 0;
      for (const auto& w : pool.workers()) ready += w.state == fiber::WorkerState::kReady;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    fiber::Queue<std::string> back;
    std::vector<std::tuple<long, std::string, std::string, std::string, fiber::Shared<std::string>,
                           fiber::Queue<std::string>>>
        asks(static_cast<std::size_t>(4 * n),
             {::getpid(), WholeFile("/proc/self/cmdline"), memfd, marker,
              fiber::share(std::string(4 << 20, 'v')), back});
    std::set<std::string> lines;
    for (const std::string& line : pool.starmap(what_i_see, asks, 1)) lines.insert(line);
    for (const std::string& line : lines) std::printf("%s\n", line.c_str());
    int whole = 0;
    for (int i = 0; i < 4 * n; ++i) whole += back.get(std::chrono::seconds(60)) == std::string(2 << 20, 'i');
    std::printf("items %d %s\n", 4 * n, whole == 4 * n ? "ok" : "damaged");
  }
  ::unlink((std::string("/dev/shm/") + marker).c_str());
  ::unlink((std::string("/tmp/") + marker).c_str());
  return 0;
}
