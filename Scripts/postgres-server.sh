#!/usr/bin/env bash
# A throwaway PostgreSQL server for tests: Debian's postgresql programs, a cluster made with
# initdb in a new temporary directory (its path in STATE_DIR/cluster), listening on 127.0.0.1 on
# a free port and on a Unix socket in the cluster's directory, run as the `postgres` user when
# started by root (PostgreSQL refuses root; the cluster's directory is that user's).
#
#   Scripts/postgres-server.sh start STATE_DIR   make the cluster, start it, wait until it
#                                                answers; write its URL to STATE_DIR/url and print
#                                                it (postgresql://postgres@127.0.0.1:PORT/postgres)
#   Scripts/postgres-server.sh stop STATE_DIR    stop it by its pid (fast shutdown, then SIGKILL
#                                                after 30 s) and remove the cluster and STATE_DIR
#
# Trust authentication on loopback and the socket only; fsync off (a test cluster). Setup
# (Scripts/setup.sh) installs the postgresql package when it is missing.
set -euo pipefail

die() { echo "postgres-server: $*" >&2; exit 1; }

command="${1:-}"
state="${2:-}"
[ -n "$state" ] || die "usage: Scripts/postgres-server.sh start|stop STATE_DIR"

bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
[ -n "$bin" ] && [ -x "$bin/initdb" ] || die "PostgreSQL is not installed (apt-get install postgresql)"

# Runs a PostgreSQL program as the cluster's owner.
as_owner() {
    if [ "$(id -u)" = 0 ]; then
        id postgres >/dev/null 2>&1 || die "running as root needs the postgres user (the postgresql package makes it)"
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

# close_inherited
. "$(dirname "$0")/server-common.sh"

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

case "$command" in
    start)
        mkdir -p "$state"
        cluster=$(mktemp -d "${TMPDIR:-/tmp}/jsonapi-postgres-XXXXXX")
        chmod 755 "$cluster"
        echo "$cluster" > "$state/cluster"
        mkdir -p "$cluster/sock"
        if [ "$(id -u)" = 0 ]; then chown -R postgres "$cluster"; fi
        as_owner "$bin/initdb" -D "$cluster/data" -A trust -U postgres -E UTF8 --no-sync >"$state/initdb.log" 2>&1 \
            || { cat "$state/initdb.log" >&2; die "initdb failed"; }
        port=$(free_port)
        (close_inherited; as_owner "$bin/pg_ctl" -D "$cluster/data" -l "$cluster/log" -w -t 60 \
            -o "-p $port -k $cluster/sock -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off" start \
            </dev/null >/dev/null 2>&1) || { cat "$cluster/log" >&2; die "the server did not start"; }
        url="postgresql://postgres@127.0.0.1:$port/postgres"
        echo "$url" > "$state/url"
        echo "$url"
        ;;
    stop)
        [ -d "$state" ] || exit 0
        cluster=$(cat "$state/cluster" 2>/dev/null || true)
        if [ -n "$cluster" ] && [ -f "$cluster/data/postmaster.pid" ]; then
            pid=$(head -1 "$cluster/data/postmaster.pid")
            kill -INT "$pid" 2>/dev/null || true
            for _ in $(seq 300); do
                kill -0 "$pid" 2>/dev/null || break
                sleep 0.1
            done
            kill -KILL "$pid" 2>/dev/null || true
        fi
        case "$cluster" in */jsonapi-postgres-*) rm -rf "$cluster" ;; esac
        rm -rf "$state"
        ;;
    *)
        die "usage: Scripts/postgres-server.sh start|stop STATE_DIR"
        ;;
esac
