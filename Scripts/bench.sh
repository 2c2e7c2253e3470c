#!/usr/bin/env bash
# The README's figures: `jsonapi bench` on generated documents of about 1, 16 and 128 MB, saved
# as Benchmarks/throughput.json, plotted to Benchmarks/throughput.svg, and the README's table
# printed (markdown) to standard output.
#
#   Scripts/bench.sh                       # 5 runs per pass, 2 interleaved rounds
#   RUNS=3 ROUNDS=1 Scripts/bench.sh       # quicker
#   Scripts/bench.sh --passes yajl,graph   # extra arguments go to jsonapi bench
#
# Takes about 10 minutes on 2 cores (Foundation at 128 MB dominates) and up to 8 GiB of
# memory (JSONSerialization at 128 MB). Environment: JSONAPI=path/to/jsonapi to use a built
# binary; otherwise it is built with `swift build -c release --scratch-path ${SCRATCH_PATH:-.build}`.
set -euo pipefail
cd "$(dirname "$0")/.."

bin="${JSONAPI:-}"
if [ -z "$bin" ]; then
    scratch="${SCRATCH_PATH:-.build}"
    swift build -c release --scratch-path "$scratch" --product jsonapi >&2
    bin="$scratch/release/jsonapi"
fi

"$bin" bench --resources 600 --resources 9000 --resources 73000 \
    --runs "${RUNS:-5}" --rounds "${ROUNDS:-2}" --format json "$@" > Benchmarks/throughput.json.tmp
mv Benchmarks/throughput.json.tmp Benchmarks/throughput.json
python3 Scripts/plot-throughput.py Benchmarks/throughput.json Benchmarks/throughput.svg --markdown
