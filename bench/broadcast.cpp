// Broadcast by reference (issue 26): a 64 MB value read by 200 tasks on 8
// local workers through fiber::share, beside its floor (bare shared
// memory: a sealed memfd read by 8 forked processes, no framework) and
// beside sending the value as every task's argument (16 tasks only: 200
// would put 12.8 GB through the master). Rounds interleave the three. For
// each: wall time, the master's CPU time (this process, all threads), and
// the most times one worker loaded the value. Prints one JSON object of
// medians. --quick (or FIBER_BENCH_QUICK=1): a 6.4 MB value.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fiber/fiber.hpp>

#include <algorithm>
#include <cstring>
#include <iostream>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "common.hpp"

using bench::Json;
using Value = std::vector<float>;

namespace {

constexpr int kWorkers = 8, kTasks = 200, kArgTasks = 16;

double cpu_seconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// What a task does with the value: reads a stride of it.
double read_value(const Value& v, int item) {
  double sum = 0;
  for (std::size_t k = static_cast<std::size_t>(item); k < v.size(); k += 4096) sum += v[k];
  return sum;
}

// The worker's pid, how many times it loaded a shared value, the read.
std::tuple<long, std::uint64_t, double> read_shared(fiber::Shared<Value> value, int item) {
  const double sum = read_value(value.get(), item);
  const fiber::detail::SharedLoads loads = fiber::detail::shared_loads();
  return {static_cast<long>(::getpid()), loads.mapped + loads.fetched, sum};
}
FIBER_TASK(read_shared);

double read_argument(Value value, int item) { return read_value(value, item); }
FIBER_TASK(read_argument);

int warm(int x) { return x; }
FIBER_TASK(warm);

struct Measure {
  double wall = 0, master_cpu = 0, copies = 0;
};

Measure by_share(fiber::Pool& pool, const Value& value) {
  const double cpu0 = cpu_seconds();
  const auto t0 = bench::Clock::now();
  auto shared = fiber::share(value);
  std::vector<std::tuple<fiber::Shared<Value>, int>> items;
  for (int i = 0; i < kTasks; ++i) items.emplace_back(shared, i);
  static std::map<long, std::uint64_t> before;  // loads by worker, after the last round
  std::map<long, std::uint64_t> loads;
  for (const auto& [pid, n, sum] : pool.starmap(read_shared, items))
    loads[pid] = std::max(loads[pid], n);
  Measure m{bench::seconds_since(t0), cpu_seconds() - cpu0, 0};
  for (const auto& [pid, n] : loads) m.copies = std::max(m.copies, static_cast<double>(n - before[pid]));
  before = loads;
  return m;
}

Measure by_argument(fiber::Pool& pool, const Value& value) {
  const double cpu0 = cpu_seconds();
  const auto t0 = bench::Clock::now();
  std::vector<std::tuple<Value, int>> items;
  for (int i = 0; i < kArgTasks; ++i) items.emplace_back(value, i);
  (void)pool.starmap(read_argument, items);
  return {bench::seconds_since(t0), cpu_seconds() - cpu0, 1.0 * kArgTasks / kWorkers};
}

// The floor: the value's bytes in a sealed memfd, read by kWorkers forked
// processes that each copy them out once (as a decode would) and do their
// share of the tasks' reads.
Measure bare_memfd(const Value& value) {
  const double cpu0 = cpu_seconds();
  const auto t0 = bench::Clock::now();
  const std::size_t bytes = value.size() * sizeof(float);
  const int fd = ::memfd_create("bench-broadcast", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0 || ::write(fd, value.data(), bytes) != static_cast<ssize_t>(bytes) ||
      ::fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) != 0)
    throw std::runtime_error("cannot fill a memfd");
  std::vector<pid_t> children;
  for (int w = 0; w < kWorkers; ++w) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      const std::string path = "/proc/" + std::to_string(::getppid()) + "/fd/" + std::to_string(fd);
      const int own = ::open(path.c_str(), O_RDONLY);
      void* map = ::mmap(nullptr, bytes, PROT_READ, MAP_SHARED, own, 0);
      if (own < 0 || map == MAP_FAILED) ::_exit(1);
      Value copy(value.size());
      std::memcpy(copy.data(), map, bytes);
      double sum = 0;
      for (int i = w; i < kTasks; i += kWorkers) sum += read_value(copy, i);
      ::_exit(sum == -1 ? 2 : 0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error("a reader failed");
  }
  ::close(fd);
  return {bench::seconds_since(t0), cpu_seconds() - cpu0, 1};
}

struct Series {
  std::vector<double> wall, cpu, copies;
  void add(const Measure& m) {
    wall.push_back(m.wall);
    cpu.push_back(m.master_cpu);
    copies.push_back(m.copies);
  }
  Json json() const {
    return Json()
        .num("wall_s", bench::summarize(wall).median)
        .num("master_cpu_s", bench::summarize(cpu).median)
        .num("most_copies_per_worker", *std::max_element(copies.begin(), copies.end()));
  }
};

}  // namespace

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  const bool quick = bench::quick(argc, argv);
  const Value value(quick ? (1 << 24) / 10 : (1 << 24), 0.5f);  // 64 MB (6.4 MB quick) of floats
  fiber::Pool pool(kWorkers);
  pool.map(warm, std::vector<int>(kWorkers * 4, 1));  // all workers up
  const int rounds = 3;
  Series share, argument, floor;
  for (int r = 0; r < rounds; ++r) {
    floor.add(bare_memfd(value));
    share.add(by_share(pool, value));
    argument.add(by_argument(pool, value));
    std::cerr << "round " << r + 1 << "/" << rounds << " done\n";
  }
  std::cout << Json()
                   .num("rounds", rounds)
                   .num("value_mb", value.size() * sizeof(float) / 1e6)
                   .num("workers", kWorkers)
                   .obj("share_200_tasks", share.json())
                   .obj("bare_memfd_200_reads", floor.json())
                   .obj("argument_16_tasks", argument.json())
                   .text()
            << "\n";
}
