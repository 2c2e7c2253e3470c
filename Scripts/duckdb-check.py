#!/usr/bin/env python3
"""Proves the output of `jsonapi normalize` loadable by the tools it feeds, with no error and no
changed value:

1. NDJSON and edges of a generated document load into DuckDB (read_ndjson_auto) with the counts
   per type and per relationship of `jsonapi stats --format json`.
2. `--split-by-type` tables of a generated document and of a document shaped like real
   servers' (JSON fields with any keys, exact decimals, big and tiny numbers, attributes that are
   null for the first rows, several JSON types in one attribute) load with DuckDB `select *`,
   pandas, polars and pyarrow (NDJSON), and with DuckDB and pandas using the column types that
   `_schema.json` declares (CSV). Every table has the row count of `stats`, and every value is
   compared with the document's own (read with exact decimals): strings and booleans equal,
   integers equal, doubles equal to the nearest double of the text, exact decimals equal as text,
   JSON text equal as JSON.
3. `jsonapi load` into SQLite of the same two documents: DuckDB attaches the file (its
   sqlite_scanner extension, from PyPI, loaded from the installed path: DuckDB would otherwise
   fetch it from the network) and reads every type table with the row count of `stats` and every
   value as in the document, in the column types `_columns` records.

4. `jsonapi load` of the same two documents into PostgreSQL (a throwaway server,
   Scripts/postgres-server.sh, stopped at the end): DuckDB attaches the database (its
   postgres_scanner extension, from PyPI likewise) and reads every type table with the row count
   of `stats` and every value as in the document (exact decimals cast to text in PostgreSQL,
   through postgres_query: DuckDB's scanner takes a `numeric` without precision for a double).

DuckDB is pinned to 1.5.5, the last version whose extensions are on PyPI.

The Python packages (duckdb, pandas, polars, pyarrow) are installed into a virtual environment the
script makes (.build/check-venv) and reuses; the script then runs itself from there.

Usage: Scripts/duckdb-check.py [JSONAPI_BINARY]   (default .build/debug/jsonapi)
"""
import os, subprocess, sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.environ.get("JSONAPI_CHECK_VENV", os.path.join(REPO, ".build", "check-venv"))
PACKAGES = ["duckdb==1.5.5", "duckdb-extension-sqlite-scanner==1.5.5", "duckdb-extension-postgres-scanner==1.5.5", "pandas", "polars",
            "pyarrow"]


def in_venv():
    if os.path.realpath(sys.prefix) == os.path.realpath(VENV):
        return
    python = os.path.join(VENV, "bin", "python")
    stamp = os.path.join(VENV, ".packages")
    wanted = " ".join(PACKAGES)
    if not (os.path.exists(python) and os.path.exists(stamp) and open(stamp).read() == wanted):
        print(f"check: installing {wanted} into {os.path.relpath(VENV, REPO)}", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
        subprocess.run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check"] + PACKAGES, check=True)
        with open(stamp, "w") as f:
            f.write(wanted)
    os.execv(python, [python] + sys.argv)


in_venv()

import datetime, json, math, random, shutil, tempfile
from decimal import Decimal

import duckdb, pandas, polars, pyarrow.json
import duckdb_extension_postgres_scanner, duckdb_extension_sqlite_scanner

binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, ".build/debug/jsonapi")
if not os.path.exists(binary):
    subprocess.run(["swift", "build", "--product", "jsonapi"], check=True, cwd=REPO)
problems = []


def jsonapi(*args, **kw):
    return subprocess.run([binary, *args], check=True, capture_output=True, **kw).stdout


def stats(doc):
    return json.loads(jsonapi("stats", "--format", "json", doc))["statistics"]


# 1. NDJSON and edges ---------------------------------------------------------------------------

def ndjson_and_edges(d):
    doc, nd, edges = (os.path.join(d, n) for n in ("doc.json", "resources.ndjson", "edges.ndjson"))
    with open(doc, "wb") as f:
        f.write(jsonapi("generate", "--resources", "3000", "--seed", "7"))
    jsonapi("normalize", "--format", "ndjson", "--resources-only", "-o", nd, doc)
    jsonapi("normalize", "--format", "edges", "-o", edges, doc)
    s = stats(doc)
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
    expected_types = {t["type"]: t["resources"] for t in s["types"]}
    expected_rels = {r["name"]: r["linkage"] for r in s["relationships"]}
    if by_type != expected_types:
        problems.append(f"ndjson: resources per type: duckdb {by_type} != stats {expected_types}")
    if by_rel != expected_rels:
        problems.append(f"edges: per relationship: duckdb {by_rel} != stats {expected_rels}")
    if primary != sum(t["primary"] for t in s["types"]):
        problems.append(f"ndjson: primary resources: duckdb {primary}")
    if dangling != s["danglingLinkage"]:
        problems.append(f"edges: dangling: duckdb {dangling} != stats {s['danglingLinkage']}")
    print(f"check: NDJSON ({sum(by_type.values())} resources, {len(by_type)} types) and edges "
          f"({sum(by_rel.values())}) load into DuckDB with the counts of `jsonapi stats`")


# 2. Tables --------------------------------------------------------------------------------------

def server_like(path):
    """A document shaped like real servers' (djangorestframework-jsonapi, flask-rest-jsonapi):
    JSON fields with keys that are not member names, exact decimals, numbers no double holds,
    attributes null for the first 150 rows, and one attribute of several JSON types."""
    rng = random.Random(11)
    data = []
    for i in range(400):
        attributes = {
            "name": f"item {i}, \"quoted\"\nline two" if i % 50 == 0 else f"item {i}",
            "price": "19.99" if i % 3 else "0.10",
            "count": i * 7 - 100,
            "ratio": [0.1, 3.19, 1.10, -0.0, 1e-3][i % 5] if i % 7 else 5,
            "ledger": [9007199254740993, 12345678901234567890123, 1e400, 1e-400, 1][i % 5],
            "settings": {"2^53+1": 9007199254740993, "example.com": {"a b": [1, "x", None]}, "": True},
            "tags": [f"t{i % 4}", "all"],
            "archived": i % 11 == 0,
            "reviewed_at": None if i < 150 else f"2026-0{1 + i % 9}-1{i % 10}T08:30:00Z",
            "score": None if i < 150 else rng.randint(-1000, 1000),
            "note": [None, "text", 3, {"k": 1}, [1, 2], False][i % 6],
        }
        if i % 13 == 0:
            del attributes["tags"]
        resource = {"type": "blog-posts", "id": str(i), "attributes": attributes,
                    "relationships": {"owner": {"data": {"type": "users", "id": str(i % 17)}}}}
        if i % 5 == 0:
            resource["meta"] = {"version": i}
        data.append(resource)
    included = [{"type": "users", "id": str(u), "attributes": {"email": f"user{u}@example.com", "age": 20 + u}} for u in range(17)]
    # The numbers written as text, so that 1e400 and 9007199254740993 stay as they are.
    text = json.dumps({"data": data, "included": included, "meta": {"count": len(data)}}, ensure_ascii=False)
    # Python reads 1e400 as infinity and 1e-400 as 0.0: write their texts back.
    text = text.replace("Infinity", "1e400").replace('"ledger": 0.0', '"ledger": 1e-400')
    with open(path, "w") as f:
        f.write(text)


def expected_rows(doc):
    """Each type's resources in document order: id, lid and attributes, numbers exact."""
    with open(doc) as f:
        text = f.read()
    decoder = json.JSONDecoder(parse_float=Decimal, parse_int=Decimal, parse_constant=Decimal)
    out = {}
    pos = 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            break
        document, pos = decoder.raw_decode(text, pos)
        for key in document:
            if key not in ("data", "included"):
                continue
            value = document[key]
            for r in (value if isinstance(value, list) else [value] if value else []):
                out.setdefault(r["type"], []).append(r)
    return out


def number_text_value(text):
    return Decimal(text)


def same(loaded, expected, ctype):
    """Whether a loaded cell holds the document's value, in the column's declared type."""
    if expected is None:
        return loaded is None or (isinstance(loaded, float) and math.isnan(loaded))
    if isinstance(loaded, float) and math.isnan(loaded):
        return False
    if ctype == "json":
        return isinstance(loaded, str) and json.loads(loaded, parse_float=Decimal, parse_int=Decimal) == expected
    if ctype == "decimal":
        return isinstance(loaded, str) and Decimal(loaded) == expected
    if ctype == "integer":
        return not isinstance(loaded, bool) and Decimal(int(loaded)) == expected and float(loaded) == float(expected)
    if ctype == "double":
        return not isinstance(loaded, bool) and float(loaded) == float(expected)
    if ctype == "boolean":
        return bool(loaded) == expected and not isinstance(loaded, str)
    if isinstance(loaded, (datetime.datetime, pandas.Timestamp)):
        # A reader that took an ISO 8601 string for a timestamp: the same instant.
        t = datetime.datetime.fromisoformat(expected.replace("Z", "+00:00"))
        if loaded.tzinfo is None:
            loaded = loaded.replace(tzinfo=datetime.timezone.utc)
        return loaded == t
    return loaded == expected


def compare(where, rows, resources, columns, problems):
    if len(rows) != len(resources):
        problems.append(f"{where}: {len(rows)} rows, the document has {len(resources)} resources")
        return
    for k, (row, r) in enumerate(zip(rows, resources)):
        attributes = r.get("attributes") or {}
        for name, ctype in columns:
            if name == "id":
                expected = r.get("id")
            elif name in ("lid",):
                expected = r.get("lid")
            elif name.startswith("_"):
                continue
            else:
                expected = attributes.get(name)
            if not same(row.get(name), expected, ctype):
                problems.append(f"{where}, row {k + 1}, {name} ({ctype}): loaded {row.get(name)!r}, the document has {expected!r}")
                return


def duckdb_type(ctype):
    return {"string": "VARCHAR", "integer": "BIGINT", "double": "DOUBLE", "decimal": "VARCHAR",
            "boolean": "BOOLEAN", "json": "VARCHAR"}[ctype]


def pandas_rows(frame):
    records = frame.to_dict("records")
    for r in records:
        for k, v in r.items():
            if v is pandas.NA or v is pandas.NaT:
                r[k] = None
    return records


def tables(d, name, doc):
    s = stats(doc)
    counts = {t["type"]: t["resources"] for t in s["types"]}
    expected = expected_rows(doc)
    nd, csv = os.path.join(d, name + "-ndjson"), os.path.join(d, name + "-csv")
    subprocess.run([binary, "normalize", "--quiet", "--split-by-type", nd, doc], check=True)
    subprocess.run([binary, "normalize", "--quiet", "--format", "csv", "--split-by-type", csv, doc], check=True)
    schema = json.load(open(os.path.join(nd, "_schema.json")))
    csv_schema = json.load(open(os.path.join(csv, "_schema.json")))
    loaded = 0
    for t, tc in zip(schema["types"], csv_schema["types"]):
        type_, columns = t["type"], [(c["name"], c["type"]) for c in t["columns"]]
        path = os.path.join(nd, t["file"])
        if t["rows"] != counts.get(type_):
            problems.append(f"{name}: {t['file']}: {t['rows']} rows, stats counts {counts.get(type_)}")
        resources = expected[type_]
        # DuckDB, select * (whole-file type inference).
        con = duckdb.connect()
        cur = con.execute(f"select * from read_ndjson_auto('{path}', sample_size=-1, maximum_object_size=67108864)")
        names = [c[0] for c in cur.description]
        compare(f"{name} duckdb {t['file']}", [dict(zip(names, r)) for r in cur.fetchall()], resources, columns, problems)
        # pandas: JSON types as they are (no guessing of numbers or dates in strings), and
        # numbers read correctly rounded (its default parser is not: 3.28 becomes 3.2800000000000002).
        frame = pandas.read_json(path, lines=True, dtype=False, precise_float=True)
        compare(f"{name} pandas {t['file']}", pandas_rows(frame), resources, columns, problems)
        # polars: every row for the schema.
        compare(f"{name} polars {t['file']}", polars.read_ndjson(path, infer_schema_length=None).to_dicts(), resources, columns, problems)
        # pyarrow.
        compare(f"{name} pyarrow {t['file']}", pyarrow.json.read_json(path).to_pylist(), resources, columns, problems)
        # CSV with the declared types: DuckDB and pandas.
        cpath = os.path.join(csv, tc["file"])
        declared = ", ".join(f"'{c['name']}': '{duckdb_type(c['type'])}'" for c in tc["columns"])
        cur = con.execute(f"select * from read_csv('{cpath}', header=true, allow_quoted_nulls=false, columns={{{declared}}})")
        names = [c[0] for c in cur.description]
        rows = [dict(zip(names, r)) for r in cur.fetchall()]
        # The CSV holds decimals as their exact text.
        compare(f"{name} duckdb csv {tc['file']}", rows, resources, columns, problems)
        dtypes = {c["name"]: {"integer": "Int64", "double": "float64", "boolean": "boolean"}.get(c["type"], "string") for c in tc["columns"]}
        frame = pandas.read_csv(cpath, dtype=dtypes, keep_default_na=False, na_values={n: [""] for n in dtypes})
        # pandas reads an empty quoted string as null too: compare with that in mind.
        flat = [{k: ("" if v is None and dtypes[k] == "string" else v) for k, v in r.items()} for r in pandas_rows(frame)]
        fixed = [dict(r, attributes={k: ("" if v is None else v) for k, v in (r.get("attributes") or {}).items()}) for r in resources]
        string_columns = [(n, t_) for n, t_ in columns if t_ == "string"]
        other_columns = [(n, t_) for n, t_ in columns if t_ != "string"]
        compare(f"{name} pandas csv {tc['file']}", flat, fixed, string_columns, problems)
        compare(f"{name} pandas csv {tc['file']}", pandas_rows(frame), resources, other_columns, problems)
        loaded += t["rows"]
    print(f"check: {name}: {loaded} rows in {len(schema['types'])} type tables load with DuckDB, pandas, polars and "
          f"pyarrow (NDJSON) and DuckDB and pandas (CSV, declared types), every value as in the document")


def extension(module, name):
    """An extension file a PyPI package installed."""
    root = os.path.dirname(module.__file__)
    for dirpath, _, files in os.walk(root):
        for f in files:
            if f == name + ".duckdb_extension":
                return os.path.join(dirpath, f)
    raise SystemExit(f"check: the {name} extension file is not in its package")


def database(d, name, doc):
    """`jsonapi load` into SQLite, read back by DuckDB."""
    counts = {t["type"]: t["resources"] for t in stats(doc)["types"]}
    expected = expected_rows(doc)
    db = os.path.join(d, name + ".sqlite")
    subprocess.run([binary, "load", "--quiet", db, doc], check=True)
    con = duckdb.connect()
    con.execute(f"LOAD '{extension(duckdb_extension_sqlite_scanner, 'sqlite_scanner')}'")
    con.execute(f"ATTACH '{db}' AS db (TYPE sqlite, READ_ONLY)")
    tables = con.execute('select "type", "table" from db._tables').fetchall()
    loaded = 0
    for type_, table in tables:
        columns = con.execute('select "column", "type" from db._columns where "table" = ? and role in (\'id\', \'lid\', \'attribute\') '
                              'order by position', [table]).fetchall()
        quoted = table.replace('"', '""')
        cur = con.execute(f'select * from db."{quoted}" order by _resource')
        names = [c[0] for c in cur.description]
        rows = [dict(zip(names, r)) for r in cur.fetchall()]
        if len(rows) != counts.get(type_):
            problems.append(f"{name}: SQLite table {table}: {len(rows)} rows, stats counts {counts.get(type_)}")
        compare(f"{name} duckdb sqlite {table}", rows, expected[type_], columns, problems)
        loaded += len(rows)
    edges = con.execute("select count(*) from db._edges").fetchone()[0]
    print(f"check: {name}: {loaded} rows in {len(tables)} SQLite tables (and {edges} edges) read by DuckDB, every value as in the document")


def postgres_database(url, name, doc):
    """`jsonapi load` into PostgreSQL, read back by DuckDB."""
    counts = {t["type"]: t["resources"] for t in stats(doc)["types"]}
    expected = expected_rows(doc)
    subprocess.run(["psql", url, "-X", "-q", "-c", "DROP SCHEMA public CASCADE; CREATE SCHEMA public"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    subprocess.run([binary, "load", "--quiet", url, doc], check=True)
    con = duckdb.connect()
    con.execute(f"LOAD '{extension(duckdb_extension_postgres_scanner, 'postgres_scanner')}'")
    con.execute(f"ATTACH '{url}' AS pg (TYPE postgres, READ_ONLY)")
    tables = con.execute('select "type", "table" from pg.public._tables order by "key"').fetchall()
    loaded = 0
    for type_, table in tables:
        columns = con.execute('select "column", "type" from pg.public._columns where "table" = ? and role in (\'id\', \'lid\', \'attribute\') '
                              'order by position', [table]).fetchall()
        quoted = table.replace('"', '""')
        # Decimals as their text, cast in PostgreSQL (postgres_query): DuckDB's scanner reads a
        # numeric without precision as a DOUBLE.
        select = ", ".join(f'"{c}"::text AS "{c}"' if t == "decimal" else f'"{c}"' for c, t in columns)
        query = f'select {select} from public."{quoted}" order by _resource'.replace("'", "''")
        cur = con.execute(f"select * from postgres_query('pg', '{query}')")
        names = [c[0] for c in cur.description]
        rows = [dict(zip(names, r)) for r in cur.fetchall()]
        if len(rows) != counts.get(type_):
            problems.append(f"{name}: PostgreSQL table {table}: {len(rows)} rows, stats counts {counts.get(type_)}")
        compare(f"{name} duckdb postgres {table}", rows, expected[type_], columns, problems)
        loaded += len(rows)
    edges = con.execute("select count(*) from pg.public._edges").fetchone()[0]
    print(f"check: {name}: {loaded} rows in {len(tables)} PostgreSQL tables (and {edges} edges) read by DuckDB, every value as in the document")


# A throwaway PostgreSQL server for part 4, stopped whatever happens.
server_state = tempfile.mkdtemp()
postgres_script = os.path.join(REPO, "Scripts/postgres-server.sh")
started = subprocess.run(["bash", postgres_script, "start", os.path.join(server_state, "pg")], check=True, capture_output=True, text=True)
postgres_url = started.stdout.strip()
try:
    with tempfile.TemporaryDirectory() as d:
        ndjson_and_edges(d)
        generated = os.path.join(d, "generated.json")
        with open(generated, "wb") as f:
            f.write(jsonapi("generate", "--resources", "3000", "--seed", "7"))
        tables(d, "generated", generated)
        database(d, "generated", generated)
        postgres_database(postgres_url, "generated", generated)
        server = os.path.join(d, "server-like.json")
        server_like(server)
        tables(d, "server-like", server)
        database(d, "server-like", server)
        postgres_database(postgres_url, "server-like", server)
finally:
    subprocess.run(["bash", postgres_script, "stop", os.path.join(server_state, "pg")])
    shutil.rmtree(server_state, ignore_errors=True)

if problems:
    print("check FAILED:\n  " + "\n  ".join(problems[:40]))
    sys.exit(1)
