#!/usr/bin/env bash
# Runs one libFuzzer target for a given time: Scripts/fuzz.sh TARGET SECONDS [LIBFUZZER ARGS...]
#
#   TARGET   parse | chunks | roundtrip | syntax | decode | load | workers | elements   (see Tests/JSONAPIStreamTests/FuzzRegressionTests.swift)
#   SECONDS  total run time (-max_total_time)
#
# Builds Fuzz/ (release, debug info, -sanitize=fuzzer,address; the C parts with ASan too) into
# Fuzz/.build when needed (FUZZ_NO_BUILD=1 skips the build). The working corpus lives outside the repository, in
# $FUZZ_WORK/TARGET (default ${TMPDIR:-/tmp}/jsonapi-fuzz/TARGET), and grows across runs; it is
# seeded each run from Corpus/ (documents, invalid, valid, requests), the JSONTestSuite cases
# (../shared/JSONTestSuite/test_parsing or $JSON_TEST_SUITE) and Corpus/fuzz/TARGET. Inputs that
# crash or fail a check are written to $FUZZ_WORK/TARGET/artifacts/. Run one fuzzer at a time.
# Ends with one summary line; exit status 1 when libFuzzer reported a finding.
#
# While findings are open (their inputs in Corpus/fuzz/TARGET are seeds and fail at once):
#   FUZZ_IGNORE='pattern|pattern'  problems matching a pattern (`*` = anything) do not stop the run
#   Scripts/fuzz.sh chunks 1800 -fork=1 -ignore_crashes=1   keeps going after a finding; rerun each
#     artifact with Fuzz/.build/release/FuzzChunks FILE to see it, -minimize_crash=1 to shrink it
# FUZZ_FOUNDATION=1 with the syntax target prints (never fails on) disagreements with Foundation's
# JSONSerialization outside the known differences, e.g. over the corpus with -runs=0.
set -uo pipefail
cd "$(dirname "$0")/.."

target="${1:-}"
seconds="${2:-}"
case "$target" in
    parse) product=FuzzParse ;;
    chunks) product=FuzzChunks ;;
    roundtrip) product=FuzzRoundTrip ;;
    syntax) product=FuzzSyntax ;;
    decode) product=FuzzDecode ;;
    load) product=FuzzLoad ;;
    workers) product=FuzzWorkers ;;
    elements) product=FuzzElements ;;
    *) echo "usage: Scripts/fuzz.sh parse|chunks|roundtrip|syntax|decode|load|workers|elements SECONDS [libFuzzer args]" >&2; exit 2 ;;
esac
[[ "$seconds" =~ ^[0-9]+$ ]] || { echo "fuzz.sh: SECONDS must be a whole number" >&2; exit 2; }
shift 2

binary=Fuzz/.build/release/$product
if [ "${FUZZ_NO_BUILD:-0}" != 1 ]; then
    # SwiftPM keeps the build plan of the path dependency (the repository) and does not always
    # see a new source file in it: start from a fresh plan.
    rm -f Fuzz/.build/release.yaml
    swift build -c release --package-path Fuzz --scratch-path Fuzz/.build \
        -Xswiftc -sanitize=fuzzer,address -Xswiftc -g -Xcc -fsanitize=address --product "$product" 2>&1 | grep -Ev '^\[|Cannot export local symbol' >&2
    [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "fuzz.sh: build failed" >&2; exit 2; }
fi
[ -x "$binary" ] || { echo "fuzz.sh: $binary is missing" >&2; exit 2; }

work="${FUZZ_WORK:-${TMPDIR:-/tmp}/jsonapi-fuzz}/$target"
mkdir -p "$work/corpus" "$work/artifacts"
rm -rf "$work/seeds"
mkdir -p "$work/seeds"

# Seeds. chunks and roundtrip inputs start with a header (FuzzChecks.Config): two variants each.
header() {
    local file="$1"
    case "$target" in
        chunks)
            printf '\x00\x00\x01\x01' ; cat "$file" ;;          # lenient, coalesce 1, 1-byte chunks
        workers)
            printf '\x00\x00\x21\x07' ; cat "$file" ;;          # lenient, batches of 11 bytes, chunks of 7
        elements)
            printf '\x00\x00\x01\xff' ; cat "$file" ;;          # lenient, batches of 1 byte, whole
        roundtrip|load)
            printf '\x00\xc0\x00' ; cat "$file" ;;              # lenient, default coalescing, whole
        *) cat "$file" ;;
    esac
}
header2() {
    local file="$1" ctx=0
    case "$(basename "$file")" in
        create-*) ctx=1 ;; update-*) ctx=2 ;; relationship-update-*) ctx=3 ;;
    esac
    case "$target" in
        chunks)     # strict, request context by name, coalesce 7, pipelined, chunks of 3 and 17 bytes
            printf "\\x01\\x$(printf %02x $((0x40 | ctx)))\\x0a\\x03\\x11" ; cat "$file" ;;
        workers)    # strict, request context by name, batches of 21 bytes, chunks of 3 and 255
            printf "\\x01\\x$(printf %02x $((0x40 | ctx)))\\x42\\x03\\xff" ; cat "$file" ;;
        elements)   # strict, request context by name, batches of 4 bytes, chunks of 3 and 255
            printf "\\x01\\x$(printf %02x $((0x40 | ctx)))\\x32\\x03\\xff" ; cat "$file" ;;
        roundtrip|load)  # camel keys, extension "ext" applied, request context by name, coalesce 1, pipelined, whole
            printf "\\x40\\x$(printf %02x $((0x10 | ctx)))\\x08" ; cat "$file" ;;
    esac
}
suite="${JSON_TEST_SUITE:-../shared/JSONTestSuite/test_parsing}"
n=0
for f in Corpus/documents/*.json Corpus/documents/multi/*.json Corpus/invalid/*.json Corpus/valid/*.json \
         Corpus/requests/*.json "$suite"/*.json Corpus/fuzz/"$target"/*; do
    [ -f "$f" ] || continue
    case "$f" in */manifest.json) continue ;; esac
    n=$((n + 1))
    header "$f" > "$work/seeds/s$n"
    if [ "$target" = chunks ] || [ "$target" = roundtrip ] || [ "$target" = load ] || [ "$target" = workers ] || [ "$target" = elements ]; then header2 "$f" > "$work/seeds/t$n"; fi
done

log="$work/log-$(date +%Y%m%d-%H%M%S).txt"
before=$(ls "$work/artifacts" | wc -l)
echo "fuzz.sh: $target for ${seconds}s; corpus $work/corpus ($(ls "$work/corpus" | wc -l) files) + $n seeds; log $log" >&2
SWIFT_BACKTRACE=enable=no "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len=65536 \
    -dict=Fuzz/json.dict -artifact_prefix="$work/artifacts/" -print_final_stats=1 \
    "$@" "$work/corpus" "$work/seeds" > "$log" 2>&1
status=$?
after=$(ls "$work/artifacts" | wc -l)

# Summary from libFuzzer's last status line and final stats (fork mode prints neither the
# same way: "#N: cov: C ft: F corp: K exec/s E oom/timeout/crash: a/b/c time: Ts").
last=$(grep -E '^#[0-9]+' "$log" | tail -1)
runs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' | tail -1)
[ -n "$runs" ] || runs=$(grep -Eo '^#[0-9]+' <<<"$last" | tr -d '#')
rate=$(grep -Eo 'stat::average_exec_per_sec: *[0-9]+' "$log" | grep -Eo '[0-9]+$' | tail -1)
[ -n "$rate" ] || rate=$(grep -Eo 'exec/s:? [0-9]+' <<<"$last" | grep -Eo '[0-9]+$')
cov=$(grep -Eo 'cov: [0-9]+ ft: [0-9]+' <<<"$last" | tail -1)
files=$(ls "$work/corpus" | wc -l)
echo "fuzz $target: exit $status, ${runs:-?} runs in ${seconds}s, ${rate:-?} exec/s, ${cov:-cov ?}, corpus $files files, $((after - before)) new artifacts in $work/artifacts"
if [ "$status" -ne 0 ]; then
    grep -E 'FUZZ CHECK FAILED|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|SUMMARY|Test unit written|Fatal error|deadly signal|timeout' "$log" | head -20
    exit 1
fi
