# A program built as the README says (pkg-config, which gives it an rpath
# to the prefix's libdir), which runs locally as it is, runs in containers too
# (--backend docker, or podman when test/run reruns the case): its packaged
# image lets the loader find every library it packaged (libfiber under the
# prefix's multiarch libdir among them; the image's library path comes
# before the program's rpath to the host's prefix). The images the case made are
# removed.
if ! engine_available; then
  echo "skipped: no $ENGINE engine answers here"
  exit 0
fi
write_pool_program app.cpp
# Named after the case, so its image (localhost/fiber/NAME) is its own.
compile user-build-in-container app.cpp
out=$(./user-build-in-container)
[ "$out" = "sum 18" ] || fail "run locally, the program printed '$out'"

before=$(packaged_images user-build-in-container)
status=0
fiber run --quiet --backend "$ENGINE" ./user-build-in-container \
  >container.out 2>container.err || status=$?
remove_images_since user-build-in-container "$before"
[ "$status" -eq 0 ] || { cat container.err >&2; fail "fiber run --backend $ENGINE failed (status $status)"; }
[ "$(cat container.out)" = "sum 18" ] || fail "on $ENGINE, the program printed '$(cat container.out)'"
[ -z "$(packaged_images user-build-in-container | comm -13 <(echo "$before") -)" ] ||
  fail "the images the case made are still there"
