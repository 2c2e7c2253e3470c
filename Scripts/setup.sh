#!/usr/bin/env bash
# Installs what building and testing need on a fresh Debian machine with Swift:
# yajl (libyajl-dev) and pkg-config from apt, DuckDB's Python package from PyPI (for the
# loadability check). Does nothing when they are already there.
set -euo pipefail
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
missing=()
pkg-config --exists yajl 2>/dev/null || missing+=(libyajl-dev)
command -v pkg-config >/dev/null || missing+=(pkg-config)
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}" >&2
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [ "${1:-}" = "--with-duckdb" ]; then
    python3 -c "import duckdb" 2>/dev/null || python3 -m pip install -q duckdb >&2
fi
