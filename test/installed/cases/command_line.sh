# The installed fiber's command line as a user first meets it: version,
# usage, where the program's words start, an unknown option, a misspelt
# FIBER_* variable (warned once, by fiber run or by a program on its own),
# and the installed bash completion offering every backend.
version=$(sed -n "s/^  version: '\(.*\)',\$/\1/p" "$FIBER_SOURCE/meson.build")
[ -n "$version" ] || fail "no version in $FIBER_SOURCE/meson.build"
[ "$(fiber --version)" = "fiber $version" ] || fail "fiber --version printed '$(fiber --version)'"
[ "$(fiber version)" = "fiber $version" ] || fail "fiber version printed '$(fiber version)'"

fiber >usage.txt || fail "fiber alone exited $?"
grep -q '^Usage: fiber' usage.txt || fail "fiber alone printed no usage"
fiber help >help.txt || fail "fiber help exited $?"
cmp -s usage.txt help.txt || fail "fiber and fiber help differ"
grep -qF 'PROGRAM [ARGS...]' <<<"$(fiber run --help)" || fail "fiber run --help does not show PROGRAM [ARGS...]"

[ "$(fiber run -q -- /bin/echo --flag a)" = "--flag a" ] || fail "fiber run -- /bin/echo --flag a"
[ "$(fiber run -q /bin/echo --flag a)" = "--flag a" ] || fail "fiber run /bin/echo --flag a"

status=0
fiber run --bogus /bin/echo hi >out.txt 2>err.txt || status=$?
[ "$status" -eq 125 ] || fail "fiber run --bogus exited $status, not 125"
grep -q "unknown option '--bogus'" err.txt || fail "fiber run --bogus said: $(cat err.txt)"

# A misspelt variable: one warning from fiber run (the program it starts
# stays quiet), one from the program started on its own.
cat >app.cpp <<'CPP'
#include <fiber/fiber.hpp>
int main(int argc, char** argv) { fiber::init(argc, argv); }
CPP
compile app app.cpp
FIBER_BAKCEND=docker fiber run -q ./app 2>warned.txt || fail "fiber run ./app with FIBER_BAKCEND failed: $(cat warned.txt)"
[ "$(grep -c 'FIBER_BAKCEND is not a fiber setting; did you mean FIBER_BACKEND?' warned.txt)" = 1 ] ||
  fail "fiber run did not warn once: $(cat warned.txt)"
FIBER_BAKCEND=docker ./app 2>alone.txt || fail "./app on its own failed"
[ "$(cat alone.txt)" = "fiber: warning: FIBER_BAKCEND is not a fiber setting; did you mean FIBER_BACKEND?" ] ||
  fail "./app on its own said: $(cat alone.txt)"

# The installed completion offers the Slurm backend and its flags.
completion=$(find "$FIBER_PREFIX" -path '*/bash-completion/completions/fiber' | head -n 1)
[ -f "$completion" ] || fail "no bash completion installed under $FIBER_PREFIX"
offered=$(bash --norc -c 'source "$1"; COMP_WORDS=(fiber run --backend ""); COMP_CWORD=3; _fiber 2>/dev/null; echo "${COMPREPLY[*]}"' _ "$completion")
[[ " $offered " == *" slurm "* ]] || fail "completion of --backend offered: $offered"
offered=$(bash --norc -c 'source "$1"; COMP_WORDS=(fiber run --par); COMP_CWORD=2; _fiber 2>/dev/null; echo "${COMPREPLY[*]}"' _ "$completion")
[ "$offered" = "--partition" ] || fail "completion of --par offered: $offered"
