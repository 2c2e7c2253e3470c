#!/usr/bin/env bash
# Times `jsonapi load` into SQLite against `normalize --format ndjson` to /dev/null on one
# document, in the same run: ROUNDS interleaved rounds (default 5) of plain NDJSON, a load into a
# new database, and a load of the same document again (every resource unchanged); prints each
# run's seconds and peak memory, the medians, the ratios to plain NDJSON (throughput: NDJSON
# seconds / load seconds), and the rows per second of each table of the first load.
# With --postgres, each round also loads into PostgreSQL and again (a throwaway server of
# Scripts/postgres-server.sh on the same machine, its schema emptied before each first load);
# the peak memory shown is the loader's, not the server's.
#
# Usage: Scripts/bench-load.sh DOCUMENT [ROUNDS] [--postgres]
#   e.g. .build/release/jsonapi generate --resources 75000 --seed 1 > /tmp/g128.json   (132 MB)
set -euo pipefail
cd "$(dirname "$0")/.."
doc="$1"
rounds="${2:-5}"
postgres="${3:-}"
bin=.build/release/jsonapi
[ -x "$bin" ] || swift build -c release --product jsonapi >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
results="$work/results"
if [ "$postgres" = "--postgres" ]; then
    url=$(Scripts/postgres-server.sh start "$work/pg")
    trap 'Scripts/postgres-server.sh stop "$work/pg"; rm -rf "$work"' EXIT
fi
for _ in $(seq "$rounds"); do
    if [ -n "${url:-}" ]; then
        psql "$url" -X -q -c "DROP SCHEMA public CASCADE; CREATE SCHEMA public" >/dev/null 2>&1
        /usr/bin/time -f "pg-load %e %M" -a -o "$results" "$bin" load --quiet "$url" "$doc"
        /usr/bin/time -f "pg-reload %e %M" -a -o "$results" "$bin" load --quiet "$url" "$doc"
    fi
    /usr/bin/time -f "ndjson %e %M" -a -o "$results" "$bin" normalize --quiet --format ndjson -o /dev/null "$doc"
    rm -f "$work/db.sqlite"
    /usr/bin/time -f "load %e %M" -a -o "$results" "$bin" load --quiet "$work/db.sqlite" "$doc"
    /usr/bin/time -f "reload %e %M" -a -o "$results" "$bin" load --quiet "$work/db.sqlite" "$doc"
done
cat "$results"
counts="$work/counts"
python3 - "$work/db.sqlite" > "$counts" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
tables = [t for (t,) in db.execute('select "table" from _tables order by rowid')] + ["_resources", "_relationships", "_edges", "_documents"]
for t in tables:
    print(t, db.execute(f'select count(*) from "{t}"').fetchone()[0])
PY
pgcounts="$work/pgcounts"
if [ -n "${url:-}" ]; then
    for t in $(psql "$url" -X -A -t -c 'SELECT quote_ident("table") FROM _tables ORDER BY key') _resources _relationships _edges _documents; do
        echo "$t $(psql "$url" -X -A -t -c "SELECT count(*) FROM $t")"
    done > "$pgcounts"
fi
python3 - "$results" "$counts" "$pgcounts" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    name, seconds, kb = line.split()
    runs.setdefault(name, []).append((float(seconds), int(kb)))
base = statistics.median(s for s, _ in runs["ndjson"])
for name, values in runs.items():
    m = statistics.median(s for s, _ in values)
    print(f"{name:9} median {m:.2f} s, peak {max(k for _, k in values) / 1024:.0f} MB, throughput {base / m:.2f} of ndjson")
load = statistics.median(s for s, _ in runs["load"])
total = 0
for line in open(sys.argv[2]):
    table, rows = line.rsplit(" ", 1)
    total += int(rows)
    print(f"  {table}: {int(rows)} rows ({int(rows) / load:,.0f} per second of the load)")
print(f"  all tables: {total} rows, {total / load:,.0f} rows/s")
import os
if os.path.exists(sys.argv[3]):
    load = statistics.median(s for s, _ in runs["pg-load"])
    total = 0
    print("PostgreSQL:")
    for line in open(sys.argv[3]):
        table, rows = line.rsplit(" ", 1)
        total += int(rows)
        print(f"  {table}: {int(rows)} rows ({int(rows) / load:,.0f} per second of the load)")
    print(f"  all tables: {total} rows, {total / load:,.0f} rows/s")
PY
