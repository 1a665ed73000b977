# The examples a user copies build outside the tree with the pkg-config line
# and run through the installed fiber with the results the README promises:
# a pool's map (every result, in order), a Manager holding remote
# simulators (remote_env, with its header beside it), Processes with a
# Queue, and Pool tasks sharing a Lock, a Semaphore and an Event, each run
# printing no error.
cp "$FIBER_SOURCE"/examples/{pool_map.cpp,remote_env.cpp,cartpole.hpp,process_queue.cpp,locks.cpp} .
for example in pool_map remote_env process_queue locks; do
  compile "$example" "$example.cpp"
  fiber run -q "./$example" >"$example.out" 2>"$example.err" ||
    { cat "$example.err" >&2; fail "fiber run ./$example failed"; }
  expect_no_error_lines "$example.err"
done
grep -qx 'done 20/20' pool_map.out || fail "pool_map printed: $(cat pool_map.out)"
grep -qx 'imap_unordered: sum of squares 2870' pool_map.out || fail "pool_map printed: $(cat pool_map.out)"
grep -qx 'sum 506' process_queue.out || fail "process_queue printed: $(cat process_queue.out)"
[ "$(grep -c 'exited with 0' process_queue.out)" = 3 ] || fail "process_queue printed: $(cat process_queue.out)"
grep -qx 'tasks started: 8' locks.out || fail "locks printed: $(cat locks.out)"
# remote_env learns: its last iteration's mean return is well above its first.
first=$(grep -m1 '^iteration' remote_env.out | awk '{print $5}')
last=$(grep '^iteration' remote_env.out | tail -n 1 | awk '{print $5}')
python3 -c "import sys; sys.exit(0 if float('$last') > 2 * float('$first') else 1)" ||
  fail "remote_env did not learn (mean return $first, then $last)"
