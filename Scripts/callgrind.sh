#!/usr/bin/env bash
# Instructions per input byte for each benchmark pass, counted by valgrind's callgrind.
#
# Instruction counts do not depend on what else the machine is doing, so they are the figure
# to compare on a shared or noisy machine. Each pass runs once (no warm-up) in its own process
# (`jsonapi bench-pass --pass P --runs 1 --warmup 0 FILE`); from its total the total of the
# same command with `--runs 0` (start-up, parsing the same arguments, reading the file into
# memory, exit) is subtracted, and the difference is divided by the input's size. (The same
# arguments matter: a value that is also a subcommand's name, as `--pass validate` is, costs
# swift-argument-parser about 7 million instructions more to parse, 6.6 per byte of a 1 MB
# document, that a `--pass none` base would leave in the pass's count.)
#
#   Scripts/callgrind.sh                          # generated documents of about 1 and 16 MB
#   Scripts/callgrind.sh --resources "9000"       # only about 16 MB
#   Scripts/callgrind.sh --passes "yajl graph" my.json other.json
#   Scripts/callgrind.sh --workers 2 --resources "9000"   # on 2 workers (all threads counted)
#   Scripts/callgrind.sh --workers 1 --concurrency sequential --resources "9000"  # one thread
#
# Without --workers the passes run with the library's default (`ParseOptions.workers` nil):
# on 2 cores that is one reader, parsing on the caller and building on a second thread, which
# costs about 4.5 instructions per byte more than 2 workers (the events are recorded and
# replayed); with 3 or more cores, one worker per core. So give --workers (and --concurrency)
# to count the same thing on any machine.
#
# Passes: none yajl scan syntax graph graph-read graph-read-one decode decode-concurrent decode-primary
# decode-primary-concurrent read-primary read-primary-concurrent encode ndjson flat-json validate tables jsonserialization
# jsondecoder jsondecoder-generic (the Foundation ones take minutes under valgrind), yajl-every-core
# (one bare yajl pass per worker at once: its count is of all copies, not per input).
# Generated documents are `jsonapi generate --resources N --seed 1` with 1e400 written 1e300,
# the same bytes `jsonapi bench` and the benchmark package use.
#
# Environment: JSONAPI=path/to/jsonapi to use a built binary; otherwise it is built with
# `swift build -c release --scratch-path ${SCRATCH_PATH:-.build}`. The hash tables' seed is
# fixed (JSONAPI_HASH_SEED, 1 unless set): with a random one, a pass's count moves by a few
# tenths per byte from run to run (which names share a cache slot, how long the probes are).
set -euo pipefail
cd "$(dirname "$0")/.."
export JSONAPI_HASH_SEED="${JSONAPI_HASH_SEED:-1}"

passes="yajl syntax graph graph-read ndjson flat-json validate"
sizes="600 9000"
workers=()
files=()
while [ $# -gt 0 ]; do
    case "$1" in
        --passes) passes="$2"; shift 2 ;;
        --resources) sizes="$2"; shift 2 ;;
        --workers|--concurrency) workers+=("$1" "$2"); shift 2 ;;
        -h|--help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) files+=("$1"); shift ;;
    esac
done

command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }

bin="${JSONAPI:-}"
if [ -z "$bin" ]; then
    scratch="${SCRATCH_PATH:-.build}"
    swift build -c release --scratch-path "$scratch" --product jsonapi >&2
    bin="$scratch/release/jsonapi"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# valgrind 3.19 gives up on some DWARF 5 debug info (clang-built C targets): count on a copy
# without debug sections; the totals do not need them.
strip -g -o "$tmp/jsonapi" "$bin" 2>/dev/null || cp "$bin" "$tmp/jsonapi"
bin="$tmp/jsonapi"

if [ ${#files[@]} -eq 0 ]; then
    for n in $sizes; do
        "$bin" generate --resources "$n" --seed 1 | sed 's/:1e400/:1e300/g' > "$tmp/generated-$n.json"
        files+=("$tmp/generated-$n.json")
    done
fi

# The total instruction count of RUNS (1, or 0 for the base) runs of the pass over the file.
instructions() {
    valgrind --tool=callgrind --callgrind-out-file="$tmp/out" "$bin" bench-pass --pass "$1" --runs "${3:-1}" --warmup 0 ${workers[@]+"${workers[@]}"} "$2" >/dev/null 2>"$tmp/err" || {
        echo "callgrind.sh: pass $1 failed on $2:" >&2; grep -v '^==' "$tmp/err" >&2 || true; return 1; }
    awk '/^summary:/ { print $2 }' "$tmp/out"
}

printf '%-28s %12s  %-20s %16s %10s %8s\n' "input" "bytes" "pass" "instructions" "per byte" "× yajl"
for file in "${files[@]}"; do
    bytes=$(wc -c < "$file" | tr -d ' ')
    name=$(basename "$file")
    floor=""
    for pass in $passes; do
        [ "$pass" = none ] && continue
        base=$(instructions "$pass" "$file" 0) || continue
        total=$(instructions "$pass" "$file") || continue
        perbyte=$(awk -v t="$total" -v b="$base" -v n="$bytes" 'BEGIN { printf "%.2f", (t - b) / n }')
        [ "$pass" = yajl ] && floor="$perbyte"
        ratio=$([ -n "$floor" ] && awk -v p="$perbyte" -v f="$floor" 'BEGIN { printf "%.2f", p / f }' || echo "-")
        printf '%-28s %12s  %-20s %16s %10s %8s\n' "$name" "$bytes" "$pass" "$((total - base))" "$perbyte" "$ratio"
    done
done
[ ${#workers[@]} -gt 0 ] && echo "bench-pass ${workers[*]}"
echo "instructions = the pass's run minus the same command with --runs 0 (start-up, arguments, reading the file); × yajl = per-byte ratio to the bare yajl pass"
