# A program run in an image that lacks its libraries (made FROM scratch with
# only the program and its dynamic loader): fiber run --backend docker ends
# at the first worker's exit 127 with one error that names it and carries
# the loader's line, and the engine started that worker's container once,
# not once per replacement. The case removes the image it built.
if ! engine_available docker; then
  echo "skipped: no Docker engine answers"
  exit 0
fi
cat > app.cpp <<'CPP'
#include <fiber/fiber.hpp>
#include <vector>
int twice(int x) { return 2 * x; }
FIBER_TASK(twice);
int main(int argc, char** argv) {
  fiber::init(argc, argv);
  fiber::Pool pool(1);
  pool.map(twice, std::vector<int>{1, 2, 3});
}
CPP
compile app app.cpp
loader=$(readelf -l app | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
[ -n "$loader" ] || fail "app has no dynamic loader"
# The worker runs the program at the path the master has it at.
mkdir image
cp app image/app
cp -L "$loader" image/loader
printf 'FROM scratch\nCOPY app %s/app\nCOPY loader %s\n' "$PWD" "$loader" >image/Dockerfile
image=fiber-test/worker-cannot-start:$$
trap 'docker image rm "$image" >/dev/null 2>&1 || true' EXIT
docker build -q -t "$image" image >/dev/null 2>build.err || { cat build.err >&2; fail "docker build failed"; }

since=$(date +%s)
status=0
fiber run --backend docker --image "$image" ./app >out 2>err || status=$?
[ "$status" -ne 0 ] || fail "the run exited 0"
grep 'fiber: error' err >error || { cat err >&2; fail "no error from fiber"; }
[ "$(wc -l <error)" = 1 ] || { cat err >&2; fail "not one error line"; }
grep -q 'worker w0 could not start: exit status 127' error || { cat err >&2; fail "the error does not name exit status 127"; }
grep -q 'cannot open shared object file' error || { cat err >&2; fail "the error lacks the loader's line"; }
grep -q 'terminate called' err && { cat err >&2; fail "the error was printed twice"; }
run=$(sed -n 's/^fiber: run \([0-9a-f]*\) .*/\1/p' err | head -n 1)
[ -n "$run" ] || { cat err >&2; fail "fiber run did not name its run"; }
# Events up to a second from now: the last of the run's are in by then.
started=$(docker events --since "$since" --until "$(($(date +%s) + 1))" --filter type=container \
  --filter "label=fiber.run=$run" --filter event=start --format '{{.ID}}' | wc -l)
[ "$started" = 1 ] || fail "$started containers started for the run, not one"
[ -z "$(docker ps -aq --filter "label=fiber.run=$run")" ] || fail "the run left containers"
true
