#!/usr/bin/env bash
# The test command: the formatting check, unit and CLI tests, the JSON conformance run through
# the CLI (when the JSONTestSuite is present), and the DuckDB loadability check. Ends with one plain line:
# "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
Scripts/setup.sh --with-duckdb

passed=0
failed=0
status=0

# The JSONTestSuite parsing cases, when present (the unit tests also look for them).
suite="${JSON_TEST_SUITE:-}"
for candidate in "$suite" ../shared/JSONTestSuite/test_parsing; do
    if [ -n "$candidate" ] && [ -d "$candidate" ]; then suite="$(cd "$candidate" && pwd)"; break; fi
done
[ -n "$suite" ] && [ -d "$suite" ] && export JSON_TEST_SUITE="$suite"

# 0. Formatting: the sources as `swift format` (the toolchain's) writes them under .swift-format.
#    To fix: swift format format -i -r Sources Tests Package.swift Benchmarks/Package.swift Benchmarks/Benchmarks Fuzz/Package.swift Fuzz/Sources
if swift format lint --strict -r Sources Tests Package.swift Benchmarks/Package.swift Benchmarks/Benchmarks Fuzz/Package.swift Fuzz/Sources; then
    passed=$((passed + 1))
else
    echo "formatting: the files above differ from what swift format writes (see Scripts/test.sh to fix)"
    failed=$((failed + 1))
fi

# 1. Unit and CLI tests (Swift Testing). xunit output gives the real counts.
rm -f .build/tests.xml .build/tests-swift-testing.xml
swift build --build-tests 2>&1 | tail -n 3
swift test --skip-build --xunit-output .build/tests.xml 2>&1 | tee .build/test-output.txt | grep -E "^(✘|􀢄)|recorded an issue|Test run with|error:" | head -200
xml=.build/tests-swift-testing.xml
if [ -f "$xml" ]; then
    t=$(grep -o 'tests="[0-9]*"' "$xml" | head -1 | grep -o '[0-9]*')
    f=$(grep -o 'failures="[0-9]*"' "$xml" | head -1 | grep -o '[0-9]*')
    passed=$((passed + t - f))
    failed=$((failed + f))
else
    echo "test.sh: no test results were written" >&2
    failed=$((failed + 1))
fi
grep -q "Test run with .* passed" .build/test-output.txt || status=1

# 2. JSON conformance through the command, at several read sizes.
if [ -n "$suite" ] && [ -d "$suite" ]; then
    if Scripts/conformance.sh "$suite"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
else
    echo "conformance: JSONTestSuite not found; skipped (the unit tests carry their own cases)"
fi

# 3. NDJSON and edges of a generated document load into DuckDB with the counts of `stats`.
if python3 Scripts/duckdb-check.py; then passed=$((passed + 1)); else failed=$((failed + 1)); fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$status" -eq 0 ]
