# fiber as a Meson subproject of a user's project: dependency('fiber').
mkdir -p subprojects
ln -s "$FIBER_SOURCE" subprojects/fiber
cat > app.cpp <<'CPP'
#include <fiber/fiber.hpp>
#include <cstdio>
#include <vector>
int triple(int x) { return 3 * x; }
FIBER_TASK(triple);
int main(int argc, char** argv) {
  fiber::init(argc, argv);
  fiber::Pool pool(2);
  int sum = 0;
  for (int y : pool.map(triple, std::vector<int>{1, 2, 3})) sum += y;
  std::printf("sum %d\n", sum);
}
CPP
cat > meson.build <<'MESON'
project('app', 'cpp', default_options: ['cpp_std=c++20'])
fiber = dependency('fiber', fallback: ['fiber', 'fiber_dep'],
                   default_options: ['tests=false', 'bench=false'])
executable('app', 'app.cpp', dependencies: fiber, export_dynamic: true)
MESON
meson setup build . >/dev/null || fail "meson setup of the subproject build failed"
ninja -C build >/dev/null || fail "building with fiber as a subproject failed"
out=$(build/app)
[ "$out" = "sum 18" ] || fail "subproject build printed '$out'"
