#!/usr/bin/env bash
# A user's two ways in: `meson install` to a prefix then pkg-config, and
# fiber as a Meson subproject. Both build a program that runs a pool.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat > "$work/app.cpp" <<'CPP'
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

echo "-- meson install to a prefix, build with pkg-config"
meson setup "$work/build" "$src" --prefix "$work/prefix" -Dtests=false -Dbench=false >/dev/null
ninja -C "$work/build" install >/dev/null
pc=$(dirname "$(find "$work/prefix" -name fiber.pc)")
test -f "$work/prefix/include/fiber/fiber.hpp"
test -f "$work/prefix/share/man/man7/fiber.7"
test -f "$work/prefix/share/fiber/templates/worker-pod.yaml"
g++ -std=c++20 -rdynamic "$work/app.cpp" $(PKG_CONFIG_PATH=$pc pkg-config --cflags --libs fiber) -o "$work/app"
out=$(LD_LIBRARY_PATH=$(PKG_CONFIG_PATH=$pc pkg-config --variable=libdir fiber) "$work/app")
[ "$out" = "sum 18" ] || { echo "installed build printed '$out'"; exit 1; }

echo "-- fiber as a Meson subproject"
mkdir -p "$work/sub/subprojects"
ln -s "$src" "$work/sub/subprojects/fiber"
cp "$work/app.cpp" "$work/sub/"
cat > "$work/sub/meson.build" <<'MESON'
project('app', 'cpp', default_options: ['cpp_std=c++20'])
fiber = dependency('fiber', fallback: ['fiber', 'fiber_dep'],
                   default_options: ['tests=false', 'bench=false'])
executable('app', 'app.cpp', dependencies: fiber, export_dynamic: true)
MESON
meson setup "$work/sub/build" "$work/sub" >/dev/null
ninja -C "$work/sub/build" >/dev/null
out=$("$work/sub/build/app")
[ "$out" = "sum 18" ] || { echo "subproject build printed '$out'"; exit 1; }
echo "both ways work"
