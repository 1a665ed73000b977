# The README's Process/Queue/Manager example, built with pkg-config and run
# three times through the installed fiber run: a run that succeeds says
# nothing of errors.
cp "$FIBER_SOURCE/test/programs/readme_processes.cpp" app.cpp
compile app app.cpp
for run in 1 2 3; do
  fiber run ./app >out 2>err ||
    { cat err >&2; fail "run $run exited $?"; }
  grep -q '^size 100$' out || fail "run $run printed '$(cat out)'"
  expect_no_error_lines err
done
