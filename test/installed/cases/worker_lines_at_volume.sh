# Workers printing 200,000 lines through the installed fiber run: every
# line arrives, and ten times the lines take at most about ten times as
# long as 20,000 (a ratio, the best of two runs of each size).
compile app "$FIBER_SOURCE/test/programs/worker_lines.cpp"

# best_seconds N: the shorter of two runs' wall times; checks each run's count.
best_seconds() {
  local best="" n=$1
  for _ in 1 2; do
    local start end
    start=$(date +%s.%N)
    fiber run ./app lines "$n" >out 2>err || fail "fiber run ./app lines $n failed: $(tail -3 err)"
    end=$(date +%s.%N)
    [ "$(cat out)" = done ] || fail "the program printed '$(head -c 200 out)'"
    local got
    got=$(grep -c '^\[w[0-9]*\] t[01] [0-9]*$' err || true)
    [ "$got" -eq "$n" ] || fail "$got worker lines arrived of $n"
    best=$(awk -v a="$best" -v s="$start" -v e="$end" 'BEGIN { d = e - s; print (a == "" || d < a) ? d : a }')
  done
  echo "$best"
}
small=$(best_seconds 20000) || exit 1
big=$(best_seconds 200000) || exit 1
awk -v s="$small" -v b="$big" 'BEGIN { exit !(b / s <= 15) }' ||
  fail "200k worker lines took ${big}s against ${small}s for 20k: more than 15 times as long"
