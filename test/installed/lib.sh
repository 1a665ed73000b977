# Sourced by every case of the installed-user stage (test/installed/run).
# A case sees only what a user has: the installed fiber on PATH, pkg-config
# finding fiber.pc, no LD_LIBRARY_PATH, and a fresh working directory.

# fail MESSAGE: ends the case with a failure naming what went wrong.
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# compile OUTPUT SOURCE...: builds a user's program as the README says, with
# pkg-config (whose flags give it an rpath to the prefix's libdir).
compile() {
  local out=$1
  shift
  # shellcheck disable=SC2046
  g++ -std=c++20 -rdynamic "$@" $(pkg-config --cflags --libs fiber) -o "$out" ||
    fail "compiling $* with pkg-config failed"
}

# expect_prefix_libfiber PROGRAM: PROGRAM, as built, loads the libfiber of
# the prefix installed into (not one found elsewhere).
expect_prefix_libfiber() {
  local ldd_out
  ldd_out=$(ldd "$1")
  grep "libfiber" <<<"$ldd_out" | grep -q "$FIBER_PREFIX/" ||
    { echo "$ldd_out" >&2; fail "$1 does not load the libfiber of the prefix $FIBER_PREFIX"; }
}

# The container engine the container cases use: docker, or podman when
# test/run reruns them against its Podman service (CONTAINER_HOST).
ENGINE=${FIBER_INSTALLED_ENGINE:-docker}

# engine_socket [ENGINE]: the Unix socket of that engine's API.
engine_socket() {
  case ${1:-$ENGINE} in
    docker) echo /var/run/docker.sock ;;
    podman) echo "${CONTAINER_HOST#unix://}" ;;
  esac
}

# engine_available [ENGINE]: whether that engine answers here (podman: only
# when the stage was given its socket, as test/run does).
engine_available() {
  local socket
  socket=$(engine_socket "${1:-$ENGINE}")
  [ -n "$socket" ] && curl -sf --max-time 5 --unix-socket "$socket" http://engine/_ping >/dev/null
}

# expect_no_error_lines FILE: a successful run says nothing of errors.
expect_no_error_lines() {
  if grep -Ei 'error|terminate called' "$1" >/dev/null; then
    cat "$1" >&2
    fail "a successful run printed an error line ($1)"
  fi
}

# packaged_images NAME: the images fiber packaged of a program named NAME
# (localhost/fiber/NAME) in the engine, as REPOSITORY:TAG, one a line, sorted.
packaged_images() {
  curl -sf --unix-socket "$(engine_socket)" -G http://engine/images/json \
      --data-urlencode "filters={\"reference\":[\"localhost/fiber/$1\"]}" |
    python3 -c 'import json, sys
for image in json.load(sys.stdin):
    for tag in image.get("RepoTags") or []:
        print(tag)' | sort
}

# remove_images_since NAME BEFORE: removes the images of NAME that are not
# in BEFORE (what packaged_images printed earlier): those the case made.
remove_images_since() {
  local image
  for image in $(packaged_images "$1"); do
    grep -qxF "$image" <<<"$2" ||
      curl -sf -X DELETE --unix-socket "$(engine_socket)" "http://engine/images/$image?force=true" >/dev/null
  done
}

# write_pool_program FILE: a user's program that maps a registered task
# over a pool of two workers and prints "sum 18".
write_pool_program() {
  cat >"$1" <<'CPP'
#include <fiber/fiber.hpp>
#include <cstdio>
#include <vector>
int triple(int x) { return 3 * x; }
FIBER_TASK(triple);
int main(int argc, char** argv) {
  fiber::init(argc, argv);
  fiber::Pool pool(2);
  int sum = 0;
  for (int y : pool.map(triple, std::vector<int>{1, 2, 3})) sum += y;
  std::printf("sum %d\n", sum);
}
CPP
}

# A case runs with pipefail: `cmd | grep -q X` can fail when grep stops
# reading early (cmd then dies of SIGPIPE), so cases grep captured output:
# grep -q X <<<"$(cmd)".
