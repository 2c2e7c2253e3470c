#!/usr/bin/env bash
# Times two commands start to exit, each run in a fresh process (the first run, as a user of
# the command gets it), in interleaved rounds (A B, B A, ...), and prints the medians and
# A's time over B's: for choices that may differ between a first run and the runs after a
# warm-up that `jsonapi bench` quotes (docs/performance.md, "The first run and the runs after
# it"). Output goes to /dev/null; a command that fails stops the script.
#
# Usage: Scripts/first-runs.sh ROUNDS "COMMAND A" "COMMAND B"
#   e.g. Scripts/first-runs.sh 15 ".build/release/jsonapi validate --workers 1 big.json" \
#                                 ".build/release/jsonapi validate --workers 2 big.json"
set -euo pipefail
if [ $# -ne 3 ]; then
    echo "usage: $0 ROUNDS \"COMMAND A\" \"COMMAND B\"" >&2
    exit 2
fi
rounds="$1"
commands=("$2" "$3")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Nanoseconds one run of command $1 (word-split as a shell would: no quoting inside) takes.
run() {
    local start end
    start=$(date +%s%N)
    # shellcheck disable=SC2086
    $1 > /dev/null
    end=$(date +%s%N)
    echo $((end - start))
}

for ((r = 0; r < rounds; r++)); do
    if ((r % 2 == 0)); then order=(0 1); else order=(1 0); fi
    for k in "${order[@]}"; do run "${commands[$k]}" >> "$work/$k"; done
done

# The median of the numbers in file $1, in milliseconds with one decimal.
median() {
    sort -n "$1" | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f", m / 1e6 }'
}
a=$(median "$work/0")
b=$(median "$work/1")
echo "A: ${commands[0]}"
echo "B: ${commands[1]}"
echo "medians of $rounds first runs: A $a ms, B $b ms, A/B $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", a / b }')"
