# A program built against the installed fiber with pkg-config runs a pool,
# with the LD_LIBRARY_PATH the README tells users to set.
write_pool_program app.cpp
test -f "$FIBER_PREFIX/include/fiber/fiber.hpp" || fail "no installed fiber.hpp"
test -f "$FIBER_PREFIX/share/man/man7/fiber.7" || fail "no installed fiber(7)"
test -f "$FIBER_PREFIX/share/fiber/templates/worker-pod.yaml" || fail "no installed worker template"
compile app app.cpp
out=$(LD_LIBRARY_PATH=$(user_lib_path) ./app)
[ "$out" = "sum 18" ] || fail "installed build printed '$out'"
