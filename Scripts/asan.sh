#!/usr/bin/env bash
# The unit and CLI tests under AddressSanitizer: Scripts/asan.sh [swift test args...]
#   e.g. Scripts/asan.sh --filter FuzzRegression
#
# Builds into .build-asan (its own scratch path: sanitizer builds do not mix with .build).
# Leak detection is off: XCTest and the Swift runtime keep allocations alive at exit that
# LeakSanitizer reports. Ends with one line "asan: PASS" or "asan: FAIL (...)"; exit status 0
# only when every test passed and no sanitizer report was printed.
#
# One suite is left out, by name: MemoryBudgetRuns runs the command under an address-space
# limit (`ulimit -v`), and an ASan binary cannot start under any such limit (its runtime
# reserves terabytes of shadow address space first: "AddressSanitizer failed to allocate").
# Those tests run in the ordinary suite (the README's test command); the final line says so.
set -uo pipefail
cd "$(dirname "$0")/.."

suite="${JSON_TEST_SUITE:-}"
for candidate in "$suite" ../shared/JSONTestSuite/test_parsing; do
    if [ -n "$candidate" ] && [ -d "$candidate" ]; then export JSON_TEST_SUITE="$(cd "$candidate" && pwd)"; break; fi
done

export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:halt_on_error=1:print_summary=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export SWIFT_BACKTRACE=enable=no   # the Swift backtracer reads memory ASan reports as a crash of its own
log=.build-asan/asan-test-output.txt
mkdir -p .build-asan
skipped=MemoryBudgetRuns
swift test --scratch-path .build-asan --sanitize=address --skip "$skipped" "$@" 2>&1 | tee "$log" | grep -E "^(✘|􀢄)|recorded an issue|Test run with|Executed [0-9]+ tests|ERROR: AddressSanitizer|SUMMARY: AddressSanitizer|error:" | head -200
status=${PIPESTATUS[0]}

if grep -q "ERROR: AddressSanitizer" "$log"; then
    echo "asan: FAIL (AddressSanitizer report; see $log)"
    exit 1
fi
if [ "$status" -ne 0 ] || ! grep -qE "Test run with .* passed" "$log"; then
    echo "asan: FAIL (swift test exit $status; see $log)"
    exit 1
fi
echo "asan: PASS ($(grep -Eo 'Test run with [0-9]+ tests?' "$log" | tail -1 | grep -Eo '[0-9]+') tests, no sanitizer report; $skipped left out: ulimit -v and ASan do not mix)"
