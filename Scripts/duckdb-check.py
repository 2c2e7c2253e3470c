#!/usr/bin/env python3
"""Proves the NDJSON and edge output loadable: generates a compound document, normalizes it
to NDJSON and edges, loads both into DuckDB with read_ndjson_auto, and checks the counts per
type and per relationship against `jsonapi stats --format json`.

Usage: Scripts/duckdb-check.py [JSONAPI_BINARY]   (default .build/debug/jsonapi)
"""
import json, os, subprocess, sys, tempfile

import duckdb

binary = sys.argv[1] if len(sys.argv) > 1 else ".build/debug/jsonapi"
if not os.path.exists(binary):
    subprocess.run(["swift", "build", "--product", "jsonapi"], check=True)

with tempfile.TemporaryDirectory() as d:
    doc, nd, edges = (os.path.join(d, n) for n in ("doc.json", "resources.ndjson", "edges.ndjson"))
    with open(doc, "wb") as f:
        subprocess.run([binary, "generate", "--resources", "3000", "--seed", "7"], stdout=f, check=True)
    subprocess.run([binary, "normalize", "--format", "ndjson", "--resources-only", "-o", nd, doc], check=True)
    subprocess.run([binary, "normalize", "--format", "edges", "-o", edges, doc], check=True)
    stats = json.loads(subprocess.run([binary, "stats", "--format", "json", doc], capture_output=True, check=True).stdout)["statistics"]

    con = duckdb.connect()
    by_type = dict(con.execute(
        f"select type, count(*) from read_ndjson_auto('{nd}', maximum_object_size=16777216) group by type").fetchall())
    by_rel = dict(con.execute(
        f"select relationship, count(*) from read_ndjson_auto('{edges}') group by relationship").fetchall())
    primary = con.execute(f"select count(*) from read_ndjson_auto('{nd}') where \"primary\"").fetchone()[0]
    dangling = con.execute(f"""
        select count(*) from read_ndjson_auto('{edges}') e
        left join read_ndjson_auto('{nd}') r on r.type = e."to".type and r.id = e."to".id
        where r.id is null""").fetchone()[0]

    expected_types = {t["type"]: t["resources"] for t in stats["types"]}
    expected_rels = {r["name"]: r["linkage"] for r in stats["relationships"]}
    expected_primary = sum(t["primary"] for t in stats["types"])
    problems = []
    if by_type != expected_types:
        problems.append(f"resources per type: duckdb {by_type} != stats {expected_types}")
    if by_rel != expected_rels:
        problems.append(f"edges per relationship: duckdb {by_rel} != stats {expected_rels}")
    if primary != expected_primary:
        problems.append(f"primary resources: duckdb {primary} != stats {expected_primary}")
    if dangling != stats["danglingLinkage"]:
        problems.append(f"dangling edges: duckdb {dangling} != stats {stats['danglingLinkage']}")
    if problems:
        print("duckdb check FAILED:\n  " + "\n  ".join(problems))
        sys.exit(1)
    print(f"duckdb check: {sum(by_type.values())} resources in {len(by_type)} types and "
          f"{sum(by_rel.values())} edges in {len(by_rel)} relationships load with the counts of `jsonapi stats`")
