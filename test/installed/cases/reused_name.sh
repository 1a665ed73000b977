# A name reused after its run ended means the new run: fiber stop NAME stops
# the one running (not "already ended"), fiber logs NAME shows its output,
# fiber ps NAME its detail; then fiber prune removes both, ended.
fiber run --detach --name sweep sh -c 'echo first' >/dev/null || fail "first run did not start"
for _ in $(seq 100); do
  grep -q '"exited"' <<<"$(fiber ps -a --json)" && break
  sleep 0.1
done
grep -q '"exited"' <<<"$(fiber ps -a --json)" || fail "the first sweep did not end"
new=$(fiber run --detach --name sweep sh -c 'echo second; while :; do sleep 0.1; done' | head -n 1)
[ ${#new} = 12 ] || fail "second run did not start"
for _ in $(seq 100); do
  [ "$(fiber logs sweep)" = second ] && break
  sleep 0.1
done
[ "$(fiber logs sweep)" = second ] || fail "fiber logs sweep showed '$(fiber logs sweep)', not the newest run's"
grep -q "\"id\": \"$new\"" <<<"$(fiber ps --json sweep)" || fail "fiber ps sweep did not show the newest run"
fiber stop sweep 2>stop.err || { cat stop.err >&2; fail "fiber stop sweep failed"; }
if grep -q 'already ended' stop.err; then fail "fiber stop sweep acted on the ended run"; fi
grep -q "$new" <<<"$(fiber ps --json)" && fail "the newest sweep still runs after fiber stop sweep"
# No engine: prune would also remove fiber's images others sharing it use.
DOCKER_HOST=unix://$PWD/no-engine CONTAINER_HOST=unix://$PWD/no-engine fiber prune >prune.out ||
  fail "fiber prune failed"
grep -q "$new" prune.out || fail "fiber prune did not remove the ended run: $(cat prune.out)"
[ "$(fiber ps -a --json)" = "[]" ] || fail "runs left after fiber prune: $(fiber ps -a --json)"
