#!/usr/bin/env bash
# Bash completion (completions/fiber.bash) as bash calls it: COMP_WORDS and
# COMP_CWORD set, _fiber called, COMPREPLY checked. Settings flags and their
# choices come from the fiber binary given (fiber __complete), so every
# setting of the table is offered; profiles from the settings file here;
# worker ids from a run's directory; files, not commands, for image build.
# Usage: completion_test.sh FIBER_BINARY COMPLETION_SCRIPT
set -uo pipefail
fiber_binary=$(realpath "$1")
script=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/project" "$work/config"
ln -s "$fiber_binary" "$work/bin/fiber"
export PATH="$work/bin:$PATH" XDG_STATE_HOME="$work/state" XDG_CONFIG_HOME="$work/config"
cd "$work/project" || exit 1
failures=0

# The candidates for the command line "$1" (completing its last word; a
# trailing space means a new, empty word).
complete_line() {
    bash --norc --noprofile -c '
        source "$1"
        read -ra COMP_WORDS <<<"$2"
        [[ $2 == *" " ]] && COMP_WORDS+=("")
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        _fiber 2>/dev/null
        printf "%s\n" "${COMPREPLY[@]}"
    ' _ "$script" "$1" | sort
}

# expect LINE WORD...: each WORD is among the candidates.
expect() {
    local line=$1 word got
    shift
    got=$(complete_line "$line")
    for word in "$@"; do
        if ! grep -qxF -- "$word" <<<"$got"; then
            echo "FAIL: '$line<TAB>' does not offer '$word'; it offers: $(tr '\n' ' ' <<<"$got")"
            failures=$((failures + 1))
        fi
    done
}

# refuse LINE WORD...: no WORD is among the candidates.
refuse() {
    local line=$1 word got
    shift
    got=$(complete_line "$line")
    for word in "$@"; do
        if grep -qxF -- "$word" <<<"$got"; then
            echo "FAIL: '$line<TAB>' offers '$word'"
            failures=$((failures + 1))
        fi
    done
}

# Every setting fiber config show lists is a flag of run and config show.
mapfile -t keys < <(fiber config show --json | sed -n 's/^  "\([a-z_]*\)": {$/\1/p')
((${#keys[@]} > 20)) || { echo "FAIL: fiber config show --json listed ${#keys[@]} settings"; exit 1; }
flags=()
for key in "${keys[@]}"; do flags+=("--${key//_/-}"); done
expect "fiber run --" "${flags[@]}" --config --env --detach
expect "fiber config show --" "${flags[@]}" --json
expect "fiber run --backend " local docker podman container kubernetes slurm
expect "fiber run --engine " auto docker podman
expect "fiber run --log " debug info warning
expect "fiber config show --host-network " true false
expect "fiber run --master " local cluster
expect "fiber " run ps top logs stop config image init help version
expect "fiber top --" --once --json --sort
expect "fiber top --sort " state id task-time done
refuse "fiber " __complete

# Profiles: those the settings file here defines.
printf 'profiles:\n  big:\n    cpu: 4\n  small:\n    cpu: 1\n' >fiber.yaml
expect "fiber run --profile " big small
expect "fiber run --profile b" big
refuse "fiber run --profile b" small
rm fiber.yaml

# Worker ids of a run, named by id or by name.
run_dir=$XDG_STATE_HOME/fiber/runs/0123456789ab
mkdir -p "$run_dir/workers"
touch "$run_dir/workers/w0.log" "$run_dir/workers/w1.log"
printf '{\n  "id": "0123456789ab",\n  "name": "train",\n  "program": "x"\n}\n' >"$run_dir/run.json"
expect "fiber logs 0123456789ab --worker " w0 w1
expect "fiber logs train --worker " w0 w1
expect "fiber logs -f train --worker w" w0 w1
expect "fiber logs " 0123456789ab train

# fiber image build PROGRAM: files here, not commands on PATH.
touch ./probe_program
expect "fiber image build " probe_program
refuse "fiber image build " bash ls
expect "fiber image build pro" probe_program

if ((failures)); then
    echo "$failures completion check(s) failed"
    exit 1
fi
echo "completion: all checks passed"
