# Two files of a user's program each define `static int work(int)` and
# register it with FIBER_TASK; main.cpp maps its own work and, through a
# function of a.cpp, a.cpp's. Each map runs its own file's work, as the
# README's task-name rule says. The items are braced lists, as users write.
cat > a.cpp <<'CPP'
#include <fiber/fiber.hpp>
#include <vector>
static int work(int x) { return x + 100; }
FIBER_TASK(work);
std::vector<int> map_a(fiber::Pool& pool) { return pool.map(work, {1, 2, 3}); }
CPP
cat > main.cpp <<'CPP'
#include <fiber/fiber.hpp>
#include <cstdio>
#include <vector>
static int work(int x) { return x * 10; }
FIBER_TASK(work);
std::vector<int> map_a(fiber::Pool& pool);
int main(int argc, char** argv) {
  fiber::init(argc, argv);
  fiber::Pool pool(2);
  for (int y : pool.map(work, {1, 2, 3})) std::printf("main %d\n", y);
  for (int y : map_a(pool)) std::printf("a %d\n", y);
}
CPP
compile app main.cpp a.cpp
./app >out 2>err || { cat out err; fail "the program failed"; }
expected=$(printf 'main 10\nmain 20\nmain 30\na 101\na 102\na 103')
[ "$(cat out)" = "$expected" ] || fail "each work did not give its own results: $(cat out)"
expect_no_error_lines err
