# A task that raises SIGSEGV on one item: the run ends non-zero with one
# error line that names the signal and the task.
cat > app.cpp <<'CPP'
#include <fiber/fiber.hpp>
#include <csignal>
#include <vector>
int boom(int x) {
  if (x == 3) std::raise(SIGSEGV);
  return x;
}
FIBER_TASK(boom);
int main(int argc, char** argv) {
  fiber::init(argc, argv);
  fiber::PoolOptions options;
  options.processes = 2;
  options.max_task_retries = 1;
  fiber::Pool pool(options);
  pool.map(boom, std::vector<int>{0, 1, 2, 3, 4, 5});
}
CPP
compile app app.cpp
status=0
fiber run ./app >out 2>err || status=$?
[ "$status" -ne 0 ] || fail "the run exited 0"
errors=$(grep -c 'error' err)
[ "$errors" = 1 ] || { cat err >&2; fail "$errors error lines, not one"; }
grep 'error' err | grep -q 'SIGSEGV' || { cat err >&2; fail "the error does not name SIGSEGV"; }
grep 'error' err | grep -q 'boom' || { cat err >&2; fail "the error does not name the task"; }
grep -q 'terminate called' err && { cat err >&2; fail "the error was printed twice"; }
true
