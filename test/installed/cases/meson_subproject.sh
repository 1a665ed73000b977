# fiber as a Meson subproject of a user's project: dependency('fiber').
mkdir -p subprojects
ln -s "$FIBER_SOURCE" subprojects/fiber
write_pool_program app.cpp
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
