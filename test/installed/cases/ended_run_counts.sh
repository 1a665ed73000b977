# A run that ended keeps its final numbers: the pi example, built outside
# the tree and run through the installed fiber, then fiber ps NAME shows its
# 40 tasks done, none failed or left, and its 4 workers started, as the
# numbers --json gives (numbers as numbers).
cp "$FIBER_SOURCE/examples/pi.cpp" .
compile pi pi.cpp
fiber run -q --name pi ./pi >out 2>err ||
  { cat err >&2; fail "fiber run ./pi failed"; }
grep -q '^pi is about 3.14' out || fail "pi printed: $(cat out)"
fiber ps --json pi >ps.json || fail "fiber ps --json pi failed"
python3 - ps.json <<'PY' || fail "fiber ps --json pi: $(cat ps.json)"
import json, sys
run = json.load(open(sys.argv[1]))
assert run["state"] == "exited" and run["exit_status"] == 0, run
assert run["tasks_failed"] == 0 and run["tasks_queued"] == 0 and run["tasks_running"] == 0, run
assert isinstance(run["tasks_done"], int) and run["tasks_done"] > 0, run
assert run["workers_started"] == 4 and run["counts_unknown"] is None, run
PY
fiber ps pi >ps.txt
grep -q '^Workers: .* 4 started$' ps.txt || fail "fiber ps pi: $(cat ps.txt)"
grep -q '^Tasks: .* done, 0 failed, 0 running, 0 queued$' ps.txt || fail "fiber ps pi: $(cat ps.txt)"
