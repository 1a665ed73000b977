// The machine's floor for bench/memory's generation: N forked processes,
// each blocked on its own pipe, are handed 2,048 tasks of 100 ms (one byte
// each, dealt round-robin) and answer through one shared pipe; no ZeroMQ,
// no encryption, no framework. What is left above ceil(2048 / N) x 100 ms
// is the cost of waking that many processes on this machine, which no
// framework can go below. Usage: wake_floor N; prints one JSON object.
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "common.hpp"

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::stoi(argv[1]) : 256;
  const int tasks = 2048;
  int answers[2];
  if (::pipe(answers) != 0) return 1;
  std::vector<int> inputs(n);
  std::vector<pid_t> children(n);
  for (int i = 0; i < n; ++i) {
    int p[2];
    if (::pipe(p) != 0) return 1;
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(p[1]);
      char byte;
      while (::read(p[0], &byte, 1) == 1) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        if (::write(answers[1], &byte, 1) != 1) break;
      }
      ::_exit(0);
    }
    ::close(p[0]);
    inputs[i] = p[1];
    children[i] = pid;
  }
  const auto t0 = bench::Clock::now();
  for (int t = 0; t < tasks; ++t) {
    const char byte = 1;
    if (::write(inputs[t % n], &byte, 1) != 1) return 1;
  }
  for (int got = 0; got < tasks;) {
    char buffer[256];
    const ssize_t r = ::read(answers[0], buffer, sizeof buffer);
    if (r <= 0) return 1;
    got += static_cast<int>(r);
  }
  const double generation_s = bench::seconds_since(t0);
  for (int fd : inputs) ::close(fd);
  for (pid_t pid : children) ::waitpid(pid, nullptr, 0);
  bench::Json out;
  out.num("workers", n)
      .num("generation_s", generation_s)
      .num("generation_ideal_s", std::ceil(double(tasks) / n) * 0.1);
  std::cout << out.text() << "\n";
}
