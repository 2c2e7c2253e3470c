#!/usr/bin/env bash
# Where the extra processor time of a pass on several workers goes, function by function:
# samples of one thread on one core against samples of N workers, the same runs of the same
# input, and the difference per function (the functions only the parallel run has, such as
# the splitters and the merge, and those that cost more there).
#
#   Scripts/parallel-overhead.sh FILE                        # graph, 2 workers, 40 runs
#   Scripts/parallel-overhead.sh --pass ndjson --workers 2 --runs 40 --top 30 FILE
#
# Each side is one `perf record -e cpu-clock` of `jsonapi bench-pass` (one warm-up run, then
# --runs): one thread pinned to core 0 (`taskset -c 0 … --workers 1 --concurrency
# sequential`) and --workers N. Both sample at the same rate, so their sample totals compare
# as processor time does, and a function's samples as its share of it. The table: samples on
# one thread, on N workers, the difference, and the difference as a percentage of the one
# thread's total; yajl (stripped of symbols) is one line. The parallel run's samples are then
# split by thread (the reading thread `jsonapi`, the workers `jsonapi-work-…`).
#
# Samples are not instructions: they count waiting on memory too, which is what this shows
# that `Scripts/callgrind.sh` does not. A function's count moves by a few percent from one
# recording to the next; read differences of less than about 0.3 % of the total as noise.
# Keep --runs at 20 or more: the first run's page faults (`clear_page_erms`, `exc_page_fault`)
# weigh on fewer runs, and more on one side than the other.
#
# Needs `perf` (Debian: linux-perf) and permission to record (kernel.perf_event_paranoid ≤ 1,
# or root). Environment: JSONAPI=path/to/jsonapi to use a built binary; otherwise
# `swift build -c release --product jsonapi` builds it. JSONAPI_HASH_SEED is fixed (1) as in
# callgrind.sh, so that both sides hash alike.
set -euo pipefail
cd "$(dirname "$0")/.."
export JSONAPI_HASH_SEED="${JSONAPI_HASH_SEED:-1}"

pass=graph
workers=2
runs=40
top=25
file=
while [ $# -gt 0 ]; do
    case "$1" in
        --pass) pass="$2"; shift 2 ;;
        --workers) workers="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --top) top="$2"; shift 2 ;;
        -h|--help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "parallel-overhead.sh: unknown option $1" >&2; exit 2 ;;
        *) file="$1"; shift ;;
    esac
done
[ -n "$file" ] || { echo "usage: Scripts/parallel-overhead.sh [--pass P] [--workers N] [--runs R] [--top K] FILE" >&2; exit 2; }
[ -f "$file" ] || { echo "parallel-overhead.sh: no such file: $file" >&2; exit 2; }
[[ "$workers" =~ ^[0-9]+$ && "$workers" -ge 2 ]] || { echo "parallel-overhead.sh: --workers must be 2 or more" >&2; exit 2; }
[[ "$runs" =~ ^[0-9]+$ && "$runs" -ge 1 ]] || { echo "parallel-overhead.sh: --runs must be a positive number" >&2; exit 2; }
[[ "$top" =~ ^[0-9]+$ ]] || { echo "parallel-overhead.sh: --top must be a number" >&2; exit 2; }
command -v perf >/dev/null || { echo "parallel-overhead.sh: perf is not installed (apt-get install linux-perf)" >&2; exit 2; }
command -v taskset >/dev/null || { echo "parallel-overhead.sh: taskset is not installed (util-linux)" >&2; exit 2; }

bin="${JSONAPI:-}"
if [ -z "$bin" ]; then
    swift build -c release --product jsonapi >&2
    bin=.build/release/jsonapi
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
record() { # name, command...
    local name="$1"
    shift
    if ! perf record -q -e cpu-clock -F 20000 -o "$work/$name.data" -- "$@" >/dev/null 2>"$work/$name.err"; then
        echo "parallel-overhead.sh: the $name run failed:" >&2
        cat "$work/$name.err" >&2
        exit 1
    fi
    perf report -i "$work/$name.data" --no-children --sort dso,sym -q -g none -F sample,dso,sym 2>/dev/null > "$work/$name.txt"
}
record one taskset -c 0 "$bin" bench-pass --pass "$pass" --workers 1 --concurrency sequential --runs "$runs" "$file"
record many "$bin" bench-pass --pass "$pass" --workers "$workers" --runs "$runs" "$file"
perf report -i "$work/many.data" --no-children --sort comm -q -g none -F sample,comm 2>/dev/null > "$work/threads.txt"

python3 - "$work" "$pass" "$workers" "$top" <<'EOF'
import subprocess, sys
work, name, workers, top = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])

def load(path):
    counts = {}
    for line in open(path):
        parts = line.split()
        if len(parts) < 4 or not parts[0].isdigit():
            continue
        n, dso, symbol = int(parts[0]), parts[1], " ".join(parts[3:])
        # yajl has no symbols: every address of its library is one line.
        key = "yajl (libyajl)" if "libyajl" in dso else f"{symbol} ({dso})"
        counts[key] = counts.get(key, 0) + n
    return counts

one, many = load(f"{work}/one.txt"), load(f"{work}/many.txt")
# Swift's names demangled (`GraphSink.append(_:store:documentBase:before:) (jsonapi)`), when
# the toolchain's swift-demangle is there.
def demangled(names):
    try:
        out = subprocess.run(["swift-demangle", "--simplified", "--compact"], input="\n".join(names) + "\n",
                             capture_output=True, text=True, check=True).stdout.split("\n")
        return dict(zip(names, out)) if len(out) >= len(names) else {}
    except (OSError, subprocess.CalledProcessError):
        return {}
readable = demangled(sorted(set(one) | set(many)))
t1, tn = sum(one.values()), sum(many.values())
if t1 == 0 or tn == 0:
    sys.exit("parallel-overhead.sh: perf recorded no samples")
print(f"{name}: one thread {t1} samples, {workers} workers {tn} ({100 * (tn - t1) / t1:+.1f} % processor time)")
print(f"{'one':>8} {'workers':>8} {'diff':>8} {'% of one':>9}  function")
keys = sorted(set(one) | set(many), key=lambda k: -(many.get(k, 0) - one.get(k, 0)))
def row(k):
    a, b = one.get(k, 0), many.get(k, 0)
    print(f"{a:8d} {b:8d} {b - a:+8d} {100 * (b - a) / t1:+8.2f}%  {(readable.get(k) or k)[:110]}")
for k in keys[:top]:
    row(k)
print("  … fewest:")
for k in keys[-min(5, len(keys)):]:
    row(k)
print(f"the {workers} workers' run by thread:")
for line in open(f"{work}/threads.txt"):
    parts = line.split()
    if len(parts) >= 2 and parts[0].isdigit():
        print(f"  {parts[1]:<16} {int(parts[0]):8d} samples ({100 * int(parts[0]) / tn:.1f} %)")
EOF
