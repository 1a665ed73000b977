# A file the program holds open without close-on-exec (as much code opens
# files) is not open in its local workers: the fork server they come from
# starts with only stdio and its own end.
cat >app.cpp <<'CPP'
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <fiber/fiber.hpp>
#include <numeric>
#include <vector>

int descriptor_open(int fd) { return ::fcntl(fd, F_GETFD) != -1 ? 1 : 0; }
FIBER_TASK(descriptor_open);

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  const int opened = ::open("held.log", O_WRONLY | O_CREAT | O_APPEND, 0644);
  const int fd = ::fcntl(opened, F_DUPFD, 200);  // a number no worker reaches on its own
  ::close(opened);
  fiber::Pool pool(2);
  const std::vector<int> open_in = pool.map(descriptor_open, std::vector<int>(4, fd));
  std::printf("open in %d of 4 tasks\n", std::accumulate(open_in.begin(), open_in.end(), 0));
  return 0;
}
CPP
compile app app.cpp
fiber run ./app >out 2>err || { cat err >&2; fail "fiber run ./app exited $?"; }
[ "$(cat out)" = "open in 0 of 4 tasks" ] || fail "the program's descriptor reached its workers: $(cat out)"
