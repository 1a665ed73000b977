# A CMake project finds the installed fiber with find_package(fiber
# REQUIRED) and links fiber::fiber (headers, libfiber, threads), with the
# prefix found from the installed fiber on PATH as CMake does, and the
# program it builds runs a pool as it is, loading the prefix's libfiber
# (fiber::fiber gives it an rpath there): in the build tree, and installed,
# where CMake's own rpath to linked libraries is dropped.
command -v cmake >/dev/null || fail "cmake is missing (.ci/install-deps installs it)"
mkdir -p project
write_pool_program project/app.cpp
cat > project/CMakeLists.txt <<'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(app CXX)
find_package(fiber 0.1 REQUIRED)
add_executable(app app.cpp)
target_link_libraries(app PRIVATE fiber::fiber)
install(TARGETS app)
CMAKE
cmake -S project -B build >configure.log 2>&1 || { cat configure.log >&2; fail "cmake could not configure a project using find_package(fiber)"; }
cmake --build build >build.log 2>&1 || { cat build.log >&2; fail "building with fiber::fiber failed"; }
for app in build/app installed/bin/app; do
  [ "$app" = build/app ] || cmake --install build --prefix installed >install.log 2>&1 ||
    { cat install.log >&2; fail "cmake --install failed"; }
  out=$("$app")
  [ "$out" = "sum 18" ] || fail "the CMake-built $app printed '$out'"
  expect_prefix_libfiber "$app"
done
