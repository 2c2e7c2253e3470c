#!/usr/bin/env bash
# The suites that run workers and threads, under ThreadSanitizer: Scripts/tsan.sh [swift test args...]
#   e.g. Scripts/tsan.sh --filter CallerAsWorker
#
# Builds into .build-tsan (its own scratch path: sanitizer builds do not mix with .build).
# By default it runs the suites of the parallel readers (many documents, ranges of elements,
# graph pieces, tables, decoding on several threads, the async stream's workers): those are
# where threads share state. Pass --filter to run others. Ends with one line "tsan: PASS" or
# "tsan: FAIL (...)"; exit status 0 only when every test passed and no report was printed.
set -uo pipefail
cd "$(dirname "$0")/.."

export TSAN_OPTIONS="halt_on_error=0:report_signal_unsafe=0${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
export SWIFT_BACKTRACE=enable=no
log=.build-tsan/tsan-test-output.txt
mkdir -p .build-tsan
args=("$@")
if [ ${#args[@]} -eq 0 ]; then
    args=(--filter "CallerAsWorker|ParallelReader|ElementRange|BatchWindow|ParallelGraph|ParallelTables|ParallelDecoding|DocumentStreamWorkers|WorkerDefaults")
fi
swift test --scratch-path .build-tsan --sanitize=thread "${args[@]}" 2>&1 | tee "$log" | grep -E "^(✘|􀢄)|recorded an issue|Test run with|WARNING: ThreadSanitizer|SUMMARY: ThreadSanitizer|error:" | head -200
status=${PIPESTATUS[0]}

if grep -q "WARNING: ThreadSanitizer" "$log"; then
    echo "tsan: FAIL ($(grep -c 'WARNING: ThreadSanitizer' "$log") ThreadSanitizer reports; see $log)"
    exit 1
fi
if [ "$status" -ne 0 ] || ! grep -qE "Test run with .* passed" "$log"; then
    echo "tsan: FAIL (swift test exit $status; see $log)"
    exit 1
fi
echo "tsan: PASS ($(grep -Eo 'Test run with [0-9]+ tests?' "$log" | tail -1 | grep -Eo '[0-9]+') tests, no ThreadSanitizer report)"
