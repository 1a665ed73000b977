#include "tasks.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <thread>

#include <fiber/fiber.hpp>

int square(int x) { return x * x; }
FIBER_TASK(square);

int add(int a, int b) { return a + b; }
FIBER_TASK(add);

std::string greet(const std::string& name) { return "hello " + name; }
FIBER_TASK(greet);

void do_nothing() {}
FIBER_TASK(do_nothing);

int fail_on_negative(int x) {
  if (x < 0) throw std::invalid_argument("negative input " + std::to_string(x));
  return x;
}
FIBER_TASK(fail_on_negative);

int throw_non_std(int x) { throw x; }
FIBER_TASK(throw_non_std);

std::string echo_bytes(std::string payload) { return payload; }
FIBER_TASK(echo_bytes);

std::size_t payload_size(std::string payload) { return payload.size(); }
FIBER_TASK(payload_size);

Particle move_particle(Particle p, double dx) {
  for (double& x : p.position) x += dx;
  return p;
}
FIBER_TASK(move_particle);

std::map<std::string, int> count_words(std::vector<std::string> words) {
  std::map<std::string, int> counts;
  for (const auto& w : words) ++counts[w];
  return counts;
}
FIBER_TASK(count_words);

std::unordered_map<std::string, double> summarize(std::pair<std::string, std::array<double, 3>> sample,
                                                  std::tuple<int, bool> flags) {
  double sum = 0;
  for (double x : sample.second) sum += x;
  return {{sample.first, sum}, {"scale", std::get<0>(flags) * (std::get<1>(flags) ? -1.0 : 1.0)}};
}
FIBER_TASK(summarize);

long worker_pid(int) { return static_cast<long>(::getpid()); }
FIBER_TASK(worker_pid);

int slow_square(int x) {
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  return x * x;
}
FIBER_TASK(slow_square);

int sleep_ms(int ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  return ms;
}
FIBER_TASK(sleep_ms);

std::pair<long, int> pid_and_square(int x) { return {static_cast<long>(::getpid()), x * x}; }
FIBER_TASK(pid_and_square);

long sleep_and_mark(std::string file, int ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  std::ofstream(file, std::ios::app) << ::getpid() << "\n";
  return static_cast<long>(::getpid());
}
FIBER_TASK(sleep_and_mark);

namespace {
int seed = -1;
}
void init_seed(int s) { seed = s; }
FIBER_TASK(init_seed);
int seeded_value(int) { return seed; }
FIBER_TASK(seeded_value);

void init_throws(int) { throw std::runtime_error("no simulator license"); }
FIBER_TASK(init_throws);

std::string getenv_task(std::string name) {
  const char* v = std::getenv(name.c_str());
  return v ? v : "";
}
FIBER_TASK(getenv_task);

int parent_pid_task() { return static_cast<int>(::getppid()); }
FIBER_TASK(parent_pid_task);

std::string proc_environ_task() {
  std::ifstream in("/proc/self/environ", std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}
FIBER_TASK(proc_environ_task);
