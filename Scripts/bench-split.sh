#!/usr/bin/env bash
# Times `normalize --split-by-type` against plain `--format ndjson` on one document, in the same
# run: ROUNDS interleaved rounds (default 5) of plain NDJSON, split (safe numbers), split with
# --numbers exact, split to CSV, and split on one worker per core (`--workers`, when there are
# two or more; the others use the default); prints each run's seconds and peak memory, then the
# medians and the ratios to plain NDJSON (throughput: NDJSON seconds / split seconds).
#
# Usage: Scripts/bench-split.sh DOCUMENT [ROUNDS]
#   e.g. .build/release/jsonapi generate --resources 75000 --seed 1 > /tmp/g128.json   (132 MB)
set -euo pipefail
cd "$(dirname "$0")/.."
doc="$1"
rounds="${2:-5}"
bin=.build/release/jsonapi
[ -x "$bin" ] || swift build -c release --product jsonapi >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
results="$work/results"
variants=("split" "exact --numbers exact" "csv --format csv")
cores=$(nproc)
[ "$cores" -ge 2 ] && variants+=("workers --workers $cores")
for _ in $(seq "$rounds"); do
    /usr/bin/time -f "ndjson %e %M" -a -o "$results" "$bin" normalize --quiet --format ndjson -o "$work/out.ndjson" "$doc"
    for variant in "${variants[@]}"; do
        set -- $variant
        name=$1; shift
        rm -rf "$work/split"
        /usr/bin/time -f "$name %e %M" -a -o "$results" "$bin" normalize --quiet "$@" --split-by-type "$work/split" "$doc"
    done
done
cat "$results"
python3 - "$results" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    name, seconds, kb = line.split()
    runs.setdefault(name, []).append((float(seconds), int(kb)))
base = statistics.median(s for s, _ in runs["ndjson"])
for name, values in runs.items():
    m = statistics.median(s for s, _ in values)
    print(f"{name:7} median {m:.2f} s, peak {max(k for _, k in values) / 1024:.0f} MB, throughput {base / m:.2f} of ndjson")
PY
