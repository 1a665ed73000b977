# A program built as the README says (pkg-config, no rpath), which runs
# locally with the LD_LIBRARY_PATH the README gives, runs with --backend
# docker too: its packaged image lets the loader find every library it
# packaged (libfiber under the prefix's multiarch libdir among them). The
# images the case made are removed.
if ! engine_available docker; then
  echo "skipped: no Docker engine answers here"
  exit 0
fi
write_pool_program app.cpp
# Named after the case, so its image (localhost/fiber/NAME) is its own.
compile user-build-in-docker app.cpp
readelf -d user-build-in-docker >dynamic.txt
if grep -Eq 'RPATH|RUNPATH' dynamic.txt; then fail "the program was linked with an rpath"; fi
out=$(LD_LIBRARY_PATH=$(user_lib_path) ./user-build-in-docker)
[ "$out" = "sum 18" ] || fail "run locally, the program printed '$out'"

before=$(packaged_images user-build-in-docker)
status=0
LD_LIBRARY_PATH=$(user_lib_path) fiber run --quiet --backend docker ./user-build-in-docker \
  >docker.out 2>docker.err || status=$?
remove_images_since user-build-in-docker "$before"
[ "$status" -eq 0 ] || { cat docker.err >&2; fail "fiber run --backend docker failed (status $status)"; }
[ "$(cat docker.out)" = "sum 18" ] || fail "on docker, the program printed '$(cat docker.out)'"
[ -z "$(packaged_images user-build-in-docker | comm -13 <(echo "$before") -)" ] ||
  fail "the images the case made are still there"
