# A program run directly (no fiber run): its local workers' lines go to
# stderr headed "[wN] ", as under fiber run, and its stdout holds only its
# own output, so `./app | sort` and `fiber run ./app | sort` agree.
compile app "$FIBER_SOURCE/test/programs/worker_lines.cpp"
./app lines 400 >out 2>err || fail "./app failed: $(tail -3 err)"
[ "$(cat out)" = done ] || fail "workers' output reached the program's stdout: $(head -3 out)"
got=$(grep -c '^\[w[0-9]*\] t[01] [0-9]*$' err || true)
[ "$got" -eq 400 ] || fail "$got of 400 worker lines on stderr headed [wN]: $(head -3 err)"
if grep -v '^\[' err >/dev/null; then fail "unheaded lines on stderr: $(grep -v '^\[' err | head -3)"; fi
direct=$(./app lines 400 2>/dev/null | sort)
relayed=$(fiber run ./app lines 400 2>/dev/null | sort)
[ "$direct" = "$relayed" ] || fail "./app | sort printed '$direct', fiber run ./app | sort '$relayed'"
