#!/usr/bin/env bash
# examples/run, the quick start: valid bash, and its header comment all
# comment (a line of it once ran as a command on every quick start).
# Usage: examples_run_script_test.sh EXAMPLES_RUN
set -euo pipefail
bash -n "$1"
# Every line before the first command is a comment.
awk 'NR > 1 && !/^#/ { exit } NR > 1 { n++ } END { exit n < 2 }' "$1" || {
    echo "FAIL: $1 has no header comment"
    exit 1
}
first_command=$(grep -v '^#' "$1" | head -1)
[[ $first_command == "set -euo pipefail" ]] || {
    echo "FAIL: the first line after the header of $1 is '$first_command', not set -euo pipefail"
    exit 1
}
echo "examples/run: header is a comment"
