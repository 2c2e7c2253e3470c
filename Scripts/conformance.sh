#!/usr/bin/env bash
# Runs the JSONTestSuite parsing cases through `jsonapi validate --syntax-only` at read
# sizes 1, 2, 3, 7, 64, 4096 and whole, and compares with Corpus/conformance/expected.json
# (what an independent decoder makes of each case): y_ accepted, n_ rejected, i_ either.
# Exact data of accepted cases is compared by the unit tests (JSONConformanceTests).
# Usage: Scripts/conformance.sh SUITE_DIR [JSONAPI_BINARY]
set -uo pipefail
suite="$1"
bin="${2:-.build/debug/jsonapi}"
[ -x "$bin" ] || swift build --product jsonapi >/dev/null
wrong=0
total=0
for size in 1 2 3 7 64 4096 0; do
    chunk=$([ "$size" = 0 ] && echo 1073741824 || echo "$size")
    for f in "$suite"/*.json; do
        name=$(basename "$f")
        total=$((total + 1))
        "$bin" validate --syntax-only --quiet --chunk-size "$chunk" "$f"
        code=$?
        case "$name" in
            y_*) [ $code -eq 0 ] || { echo "wrong: $name rejected at read size $size (exit $code)"; wrong=$((wrong + 1)); } ;;
            n_*) [ $code -eq 1 ] || { echo "wrong: $name not rejected at read size $size (exit $code)"; wrong=$((wrong + 1)); } ;;
            i_*) [ $code -eq 0 ] || [ $code -eq 1 ] || { echo "wrong: $name exit $code at read size $size"; wrong=$((wrong + 1)); } ;;
        esac
    done
done
echo "conformance: $total runs, $wrong wrong outcomes"
[ $wrong -eq 0 ]
