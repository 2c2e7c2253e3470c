#!/usr/bin/env bash
# Installs what building and testing need on a fresh Debian machine with Swift:
# yajl (libyajl-dev), zlib (zlib1g-dev), libsqlite3 (libsqlite3-dev, for
# `jsonapi load`), libpq (libpq-dev: the library `jsonapi load postgresql://…` loads, and the
# header a test compares with), libcurl
# (libcurl4-openssl-dev, the client's default transport on Linux; it brings libcrypto, libssl3,
# which SHA-256 loads at run time), PostgreSQL (postgresql:
# the throwaway server of Scripts/postgres-server.sh),
# libzstd (libzstd-dev; the zstd
# and gzip programs for the tests) and pkg-config from apt, python3-venv (the loadability check,
# Scripts/duckdb-check.py, installs DuckDB, pandas, polars and pyarrow from PyPI into a virtual
# environment of its own, .build/check-venv), and the JSON:API test server's packages from PyPI (Django,
# djangorestframework-jsonapi, in TestServer/.venv, for the client's end-to-end tests).
# Does nothing when they are already there.
set -euo pipefail
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
missing=()
pkg-config --exists yajl 2>/dev/null || missing+=(libyajl-dev)
pkg-config --exists zlib 2>/dev/null || missing+=(zlib1g-dev)
pkg-config --exists libzstd 2>/dev/null || missing+=(libzstd-dev)
pkg-config --exists sqlite3 2>/dev/null || missing+=(libsqlite3-dev)
pkg-config --exists libpq 2>/dev/null || missing+=(libpq-dev)
pkg-config --exists libcurl 2>/dev/null || missing+=(libcurl4-openssl-dev)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
command -v zstd >/dev/null || missing+=(zstd)
command -v gzip >/dev/null || missing+=(gzip)
command -v pkg-config >/dev/null || missing+=(pkg-config)
if [ "${1:-}" = "--with-duckdb" ]; then
    python3 -c "import ensurepip, venv" 2>/dev/null || missing+=(python3-venv)
fi
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}" >&2
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [ "${1:-}" = "--with-duckdb" ] || [ "${1:-}" = "--with-test-server" ]; then
    # Idempotent; the tests install it too on first use, and fail (never skip) without it.
    "$(dirname "$0")/test-server.sh" install \
        || echo "setup: the test server's packages could not be installed; the client's end-to-end tests will fail" >&2
fi
