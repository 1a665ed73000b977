# fiber run -d: the program's stdout reaches its log line by line while it
# runs (fiber logs shows a line soon after it is printed), and what it
# printed is still there after fiber stop.
compile app "$FIBER_SOURCE/test/programs/worker_lines.cpp"
id=$(fiber run -d ./app ticks) || fail "fiber run -d failed"
id=${id%%$'\n'*}
trap 'fiber stop --force "$id" >/dev/null 2>&1 || true' EXIT  # whatever fails below
# A tick is 8 bytes every 50 ms: held in a 4 KiB block, none would show
# within 10 s.
shown=""
for _ in $(seq 100); do
  fiber logs "$id" >logs || true
  if grep -qx 'tick 3' logs; then shown=yes; break; fi
  sleep 0.1
done
[ -n "$shown" ] || fail "no 'tick 3' in fiber logs $id within 10 s"
fiber ps | grep "$id" >/dev/null || fail "fiber ps does not list the running run $id"
fiber stop "$id" >/dev/null || fail "fiber stop $id failed"
for _ in $(seq 100); do
  fiber ps | grep "$id" >/dev/null || break
  sleep 0.1
done
fiber logs "$id" >logs
grep -qx 'tick 3' logs || fail "the run's output was lost on fiber stop"
