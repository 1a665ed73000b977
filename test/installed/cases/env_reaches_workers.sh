# fiber run --env KEY=VALUE reaches the workers as well as the program, on
# the local backend and in containers (docker, or podman when test/run
# reruns the case), and a name that cannot be a
# variable's is refused with one clear error.
cat > app.cpp <<'CPP'
#include <fiber/fiber.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
std::string seed(int) {
  const char* v = std::getenv("MY_SEED");
  return v ? v : "(unset)";
}
FIBER_TASK(seed);
int main(int argc, char** argv) {
  fiber::init(argc, argv);
  fiber::Pool pool(2);
  for (const std::string& s : pool.map(seed, std::vector<int>{1, 2, 3, 4})) std::printf("seed %s\n", s.c_str());
}
CPP
# Named after the case, so its image (localhost/fiber/NAME) is its own.
compile env-reaches-workers app.cpp
expected=$(printf 'seed 7\n%.0s' 1 2 3 4)
fiber run --quiet --env MY_SEED=7 ./env-reaches-workers >local.out 2>local.err ||
  { cat local.err >&2; fail "fiber run --env on the local backend failed"; }
[ "$(cat local.out)" = "$expected" ] || fail "local workers saw: $(cat local.out)"

if fiber run --quiet --env 1X=2 ./env-reaches-workers >bad.out 2>bad.err; then fail "--env 1X=2 was accepted"; fi
grep -q "'1X' is not a variable name" bad.err || { cat bad.err >&2; fail "--env 1X=2 gave no clear error"; }

if ! engine_available; then
  echo "skipped the container half: no $ENGINE engine answers here"
  exit 0
fi
before=$(packaged_images env-reaches-workers)
status=0
fiber run --quiet --backend "$ENGINE" --env MY_SEED=7 ./env-reaches-workers \
  >container.out 2>container.err || status=$?
remove_images_since env-reaches-workers "$before"
[ "$status" -eq 0 ] || { cat container.err >&2; fail "fiber run --env on the $ENGINE backend failed"; }
[ "$(cat container.out)" = "$expected" ] || fail "$ENGINE workers saw: $(cat container.out)"
