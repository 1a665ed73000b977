# Daemons that test scripts start and stop (test/cluster, test/slurm),
# sourced by their lib.sh, which defines DIR (pids in $DIR/run, logs in
# $DIR/logs) and log.
# shellcheck shell=bash

# start_time PID: the process's start time (field 22 of /proc/PID/stat), which
# tells a process apart from a later one that got the same pid.
start_time() { awk '{print $22}' "/proc/$1/stat" 2>/dev/null; }

# pid_of NAME: pid of the process started as NAME by `start`, if it still runs.
pid_of() {
  local f=$DIR/run/$1.pid pid t
  [[ -f $f ]] || return 1
  read -r pid t <"$f"
  [[ -n $pid && -n $t && $(start_time "$pid") == "$t" ]] || return 1
  echo "$pid"
}

# start NAME CMD...: run CMD in its own session, detached from the caller,
# logging to $DIR/logs/NAME.log; does nothing if it is already running.
start() {
  local name=$1 pid
  shift
  if pid=$(pid_of "$name"); then
    log "$name already running (pid $pid)"
    return
  fi
  mkdir -p "$DIR/run" "$DIR/logs"
  log "starting $name (log: $DIR/logs/$name.log)"
  setsid "$@" >>"$DIR/logs/$name.log" 2>&1 </dev/null &
  echo "$! $(start_time $!)" >"$DIR/run/$name.pid"
}

# [watch=NAME] wait_for WHAT SECONDS CMD...: poll CMD every 0.2 s until it
# succeeds; fail with a clear message after SECONDS, or at once if the
# process started as NAME has exited.
wait_for() {
  local what=$1 limit=$2 deadline
  shift 2
  deadline=$((SECONDS + limit))
  until "$@" >/dev/null 2>&1; do
    if [[ -n ${watch:-} ]] && ! pid_of "$watch" >/dev/null; then
      log "ERROR: $watch exited while waiting for $what (see $DIR/logs/$watch.log)"
      return 1
    fi
    if ((SECONDS >= deadline)); then
      log "ERROR: timed out after ${limit}s waiting for $what"
      return 1
    fi
    sleep 0.2
  done
}

# stop NAME: SIGTERM the process started as NAME, SIGKILL it after 20s.
stop() {
  local pid i
  pid=$(pid_of "$1") || { rm -f "$DIR/run/$1.pid"; return 0; }
  log "stopping $1 (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 200; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "$1 did not stop after 20s; killing it"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$DIR/run/$1.pid"
}
