# Sourced by every case of the installed-user stage (test/installed/run).
# A case sees only what a user has: the installed fiber on PATH, pkg-config
# finding fiber.pc, no LD_LIBRARY_PATH, and a fresh working directory.

# fail MESSAGE: ends the case with a failure naming what went wrong.
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# compile OUTPUT SOURCE...: builds a user's program as the README says, with
# pkg-config and no rpath.
compile() {
  local out=$1
  shift
  # shellcheck disable=SC2046
  g++ -std=c++20 -rdynamic "$@" $(pkg-config --cflags --libs fiber) -o "$out" ||
    fail "compiling $* with pkg-config failed"
}

# user_lib_path: the LD_LIBRARY_PATH the README tells a user to set for a
# program built without an rpath.
user_lib_path() { pkg-config --variable=libdir fiber; }

# engine_available docker|podman: whether that engine answers here (podman:
# only when the stage was given its socket, as test/run does).
engine_available() {
  case $1 in
    docker) curl -sf --max-time 5 --unix-socket /var/run/docker.sock http://engine/_ping >/dev/null ;;
    podman) [ -n "${CONTAINER_HOST:-}" ] &&
      curl -sf --max-time 5 --unix-socket "${CONTAINER_HOST#unix://}" http://engine/_ping >/dev/null ;;
    *) return 1 ;;
  esac
}

# expect_no_error_lines FILE: a successful run says nothing of errors.
expect_no_error_lines() {
  if grep -Ei 'error|terminate called' "$1" >/dev/null; then
    cat "$1" >&2
    fail "a successful run printed an error line ($1)"
  fi
}
