# A program built against the installed fiber with pkg-config runs a pool
# as it is: fiber.pc gives it an rpath to the prefix's libdir, so it loads
# the libfiber installed there.
write_pool_program app.cpp
test -f "$FIBER_PREFIX/include/fiber/fiber.hpp" || fail "no installed fiber.hpp"
test -f "$FIBER_PREFIX/share/man/man7/fiber.7" || fail "no installed fiber(7)"
test -f "$FIBER_PREFIX/share/fiber/templates/worker-pod.yaml" || fail "no installed worker template"
compile app app.cpp
out=$(./app)
[ "$out" = "sum 18" ] || fail "installed build printed '$out'"
expect_prefix_libfiber ./app
