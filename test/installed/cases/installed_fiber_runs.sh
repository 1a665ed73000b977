# The installed fiber command runs with no LD_LIBRARY_PATH, from any
# prefix: it finds the libfiber installed beside it (its install rpath).
[ -z "${LD_LIBRARY_PATH:-}" ] || fail "the stage runs cases without LD_LIBRARY_PATH"
fiber --help >help.txt 2>&1 || { cat help.txt >&2; fail "the installed fiber --help failed"; }
grep -q "run" help.txt || fail "fiber --help does not list run"
fiber config show >show.txt 2>&1 || { cat show.txt >&2; fail "the installed fiber config show failed"; }
grep -q "backend" show.txt || fail "fiber config show does not show the backend setting"
expect_prefix_libfiber "$FIBER_PREFIX/bin/fiber"

