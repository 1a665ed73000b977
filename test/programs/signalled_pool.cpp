// A master that handles signals of its own while its pool of N workers maps
// M small tasks (squares of 0..M-1, one per chunk): SIGALRM from a fast
// interval timer, and SIGUSR1 sent over and over to each of its threads, as
// a profiler does, fiber's threads among them. Prints "sum S" and how many
// signals its handlers took; a signal must never end the run.
#include <fiber/fiber.hpp>

#include <dirent.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <thread>
#include <vector>

long square(long x) { return x * x; }
FIBER_TASK(square);

namespace {

volatile sig_atomic_t handled = 0;
void Count(int) { handled = handled + 1; }

void SignalEveryThread() {
  DIR* tasks = ::opendir("/proc/self/task");
  if (!tasks) return;
  while (const dirent* e = ::readdir(tasks))
    if (e->d_name[0] != '.') ::syscall(SYS_tgkill, ::getpid(), std::atoi(e->d_name), SIGUSR1);
  ::closedir(tasks);
}

}  // namespace

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 2;
  const long m = argc > 2 ? std::atol(argv[2]) : 2000;
  // No SA_RESTART: every interrupted call fails with EINTR.
  struct sigaction action {};
  action.sa_handler = Count;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGUSR1, &action, nullptr);
  ::sigaction(SIGALRM, &action, nullptr);
  fiber::Pool pool(n);
  const itimerval every_ms{{0, 1000}, {0, 1000}};
  ::setitimer(ITIMER_REAL, &every_ms, nullptr);
  std::atomic<bool> done{false};
  std::thread signaller([&done] {
    while (!done) {
      SignalEveryThread();
      std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
  });
  std::vector<long> xs(static_cast<std::size_t>(m));
  std::iota(xs.begin(), xs.end(), 0L);
  long sum = 0;
  for (long y : pool.map(square, xs, 1)) sum += y;
  done = true;
  signaller.join();
  const itimerval off{};
  ::setitimer(ITIMER_REAL, &off, nullptr);
  std::printf("sum %ld\nsignals %d\n", sum, static_cast<int>(handled));
}
