// Tasks shared by the test executables (registered in tasks.cpp).
#pragma once

#include <cstdint>
#include <array>
#include <map>
#include <unordered_map>
#include <utility>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

struct Particle {
  std::string name;
  std::vector<double> position;
  std::optional<int> charge;
  bool operator==(const Particle&) const = default;
  template <class Archive>
  void serialize(Archive& ar) {
    ar(name, position, charge);
  }
};

/// A recursive type: each level takes the 8 bytes of a length.
struct Tree {
  std::vector<Tree> kids;
  bool operator==(const Tree&) const = default;
  template <class Archive>
  void serialize(Archive& ar) {
    ar(kids);
  }
};

int square(int x);
int add(int a, int b);
std::string greet(const std::string& name);
void do_nothing();
int fail_on_negative(int x);
int throw_non_std(int x);
std::string echo_bytes(std::string payload);
std::size_t payload_size(std::string payload);
Particle move_particle(Particle p, double dx);
std::map<std::string, int> count_words(std::vector<std::string> words);
long worker_pid(int ignored);
std::unordered_map<std::string, double> summarize(std::pair<std::string, std::array<double, 3>> sample,
                                                  std::tuple<int, bool> flags);
int slow_square(int x);        // sleeps 2 ms
int sleep_ms(int ms);          // returns ms
std::pair<long, int> pid_and_square(int x);  // this worker's pid and x * x
/// Sleeps ms, then appends a line to file (one per run to completion);
/// returns this worker's pid.
long sleep_and_mark(std::string file, int ms);
int seeded_value(int ignored);  // what init_seed set in this worker
void init_seed(int seed);
void init_throws(int ignored);
std::string getenv_task(std::string name);
/// The worker's parent: for a local worker, its backend's fork server.
int parent_pid_task();
std::string proc_environ_task();  // this worker's /proc/self/environ, NUL-separated
