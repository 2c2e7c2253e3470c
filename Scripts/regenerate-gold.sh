#!/usr/bin/env bash
# Regenerates Corpus/gold/ from Corpus/documents/: for each document, its `normalize` output
# as flat JSON, NDJSON and edges. The only way gold files are made; review the diff.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product jsonapi >/dev/null
bin=.build/debug/jsonapi
rm -rf Corpus/gold
find Corpus/documents -name '*.json' | sort | while read -r f; do
    rel="${f#Corpus/documents/}"
    base="Corpus/gold/${rel%.json}"
    mkdir -p "$(dirname "$base")"
    "$bin" normalize --quiet --format json "$f" > "$base.json"
    "$bin" normalize --quiet --format ndjson "$f" > "$base.ndjson"
    "$bin" normalize --quiet --format edges "$f" > "$base.edges"
done
echo "gold: $(find Corpus/gold -type f | wc -l) files"
