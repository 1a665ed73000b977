# A fiber.yaml another user planted in a shared directory above the working
# directory (world-writable, as /tmp or a scratch space) is not read: the
# fiber command and a program's fiber::init each say so in one line, and
# the user's own file is still read.
if [ "$(id -u)" != 0 ]; then
  echo "skipped: handing a file to another user needs root"
  exit 0
fi
mkdir -p shared/mine
chmod 1777 shared
planted=$PWD/shared/fiber.yaml
printf 'prefetch: 7\nkubeconfig: %s/their-kubeconfig\n' "$PWD" >"$planted"
chown 65534:65534 "$planted"
cat > app.cpp <<'CPP'
#include <fiber/fiber.hpp>
#include <cstdio>
int main(int argc, char** argv) {
  fiber::init(argc, argv);
  std::puts("started");
}
CPP
compile app app.cpp
cd shared/mine
fiber config show >show.out 2>show.err || fail "fiber config show failed: $(cat show.err)"
! grep -q their-kubeconfig show.out || fail "fiber config show took the planted kubeconfig"
grep -Eq '^prefetch +[0-9]+ +default$' show.out || fail "prefetch is not the default: $(grep ^prefetch show.out)"
[ "$(wc -l <show.err)" -eq 1 ] && grep -q "^fiber: warning: ignoring $planted: " show.err ||
  fail "not one refusal line naming $planted: $(cat show.err)"
../../app >app.out 2>app.err || fail "the program failed: $(cat app.err)"
grep -q "^fiber: warning: ignoring $planted: " app.err || fail "fiber::init did not say it ignored $planted"
# The user's own file, writable by them alone, is read.
printf 'prefetch: 5\n' >fiber.yaml
chmod 0644 fiber.yaml
fiber config show >own.out 2>own.err || fail "fiber config show failed: $(cat own.err)"
grep -Eq "^prefetch +5 +$PWD/fiber.yaml:1:11$" own.out || fail "the user's own fiber.yaml was not read"
[ ! -s own.err ] || fail "warnings about the user's own file: $(cat own.err)"
