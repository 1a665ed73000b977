# A CMake project finds the installed fiber with find_package(fiber
# REQUIRED) and links fiber::fiber (headers, libfiber, threads), with the
# prefix found from the installed fiber on PATH as CMake does, and the
# program it builds runs a pool.
command -v cmake >/dev/null || fail "cmake is missing (.ci/install-deps installs it)"
mkdir -p project
write_pool_program project/app.cpp
cat > project/CMakeLists.txt <<'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(app CXX)
find_package(fiber 0.1 REQUIRED)
add_executable(app app.cpp)
target_link_libraries(app PRIVATE fiber::fiber)
CMAKE
cmake -S project -B build >configure.log 2>&1 || { cat configure.log >&2; fail "cmake could not configure a project using find_package(fiber)"; }
cmake --build build >build.log 2>&1 || { cat build.log >&2; fail "building with fiber::fiber failed"; }
out=$(LD_LIBRARY_PATH=$(user_lib_path) build/app)
[ "$out" = "sum 18" ] || fail "the CMake-built program printed '$out'"
