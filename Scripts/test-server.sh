#!/usr/bin/env bash
# The JSON:API test server for the client's end-to-end tests: TestServer/ (Django,
# djangorestframework-jsonapi, SQLite) on a free 127.0.0.1 port.
#
#   Scripts/test-server.sh install            Python packages (TestServer/.venv) and the seeded database
#   Scripts/test-server.sh start [STATE_DIR]  install when needed, start, wait until it answers,
#                                             write its URL to STATE_DIR/url and print it
#   Scripts/test-server.sh stop  [STATE_DIR]  stop the server started with that STATE_DIR
#
# STATE_DIR defaults to TestServer/var/run. Each start serves a fresh copy of the seeded
# database, so writes of one run never leak into the next. With JSONAPI_TEST_SERVER_PARENT=PID
# the server also stops by itself when that process ends (a test run that crashed).
# Everything is idempotent; installing needs PyPI (pip), nothing else.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
server="$root/TestServer"
var="$server/var"
venv="$server/.venv"
mkdir -p "$var"

die() { echo "test-server: $*" >&2; exit 1; }

modules="import django, rest_framework, rest_framework_json_api, django_filters"

# The Python that has the server's packages, installing them when missing. A venv when
# python3 can make one; otherwise the user's site-packages (--break-system-packages where
# the system Python is externally managed).
python_with_packages() {
    local stamp="$venv/.requirements"
    if [ -x "$venv/bin/python" ] && cmp -s "$server/requirements.txt" "$stamp" \
        && "$venv/bin/python" -c "$modules" 2>/dev/null; then
        echo "$venv/bin/python"; return
    fi
    command -v python3 >/dev/null || die "python3 is not installed (apt-get install python3 python3-venv)"
    if [ -x "$venv/bin/python" ] || python3 -m venv "$venv" >&2 2>/dev/null; then
        echo "test-server: installing $(grep -v '^#' "$server/requirements.txt" | tr '\n' ' ')into TestServer/.venv" >&2
        if "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$server/requirements.txt" >&2; then
            cp "$server/requirements.txt" "$stamp"
            echo "$venv/bin/python"; return
        fi
        die "pip could not install TestServer/requirements.txt into TestServer/.venv"
    fi
    rm -rf "$venv"
    if python3 -c "$modules" 2>/dev/null; then echo "python3"; return; fi
    echo "test-server: no venv (python3-venv missing?); installing into the user's site-packages" >&2
    python3 -m pip install -q --user -r "$server/requirements.txt" >&2 \
        || python3 -m pip install -q --user --break-system-packages -r "$server/requirements.txt" >&2 \
        || die "pip could not install TestServer/requirements.txt"
    python3 -c "$modules" 2>/dev/null || die "the server's packages are installed but do not import"
    echo "python3"
}

# The seeded database, made once per version of the models and the seed (a template that
# each start copies).
seeded_database() {
    local py="$1" key template
    key=$(cat "$server/requirements.txt" "$server/blog/models.py" "$server/blog/management/commands/seed.py" | cksum | cut -d' ' -f1)
    template="$var/seed-$key.sqlite3"
    if [ ! -s "$template" ]; then
        rm -f "$var"/seed-*.sqlite3 "$template.tmp"
        (cd "$server" && JSONAPI_TEST_DB="$template.tmp" "$py" manage.py migrate --run-syncdb -v 0 >&2 \
            && JSONAPI_TEST_DB="$template.tmp" "$py" manage.py seed >&2) || die "could not create the database"
        mv "$template.tmp" "$template"
    fi
    echo "$template"
}

# Installs under a lock: test runs that start servers at the same time install once.
prepare() {
    exec 9>"$var/.install.lock"
    flock 9 2>/dev/null || true
    PY="$(python_with_packages)"
    TEMPLATE="$(seeded_database "$PY")"
    flock -u 9 2>/dev/null || true
    exec 9>&-
}

# close_inherited
. "$root/Scripts/server-common.sh"

# Runs manage.py with no signal blocked: a caller (Foundation's Process) may have blocked
# SIGTERM, and the server would inherit that and ignore stop.
unblock='import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, set()); os.execv(sys.executable, [sys.executable] + sys.argv[1:])'

free_port() {
    "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

wait_ready() {
    "$PY" - "$1" <<'PY'
import sys, time, urllib.request
url = sys.argv[1] + "/test/health"
deadline = time.time() + 90
while time.time() < deadline:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            if r.status == 200:
                sys.exit(0)
    except Exception:
        time.sleep(0.2)
sys.exit(1)
PY
}

stop() {
    local state="$1" pid
    if [ -f "$state/watchdog.pid" ]; then
        # Only a sleep loop: nothing to clean up.
        kill -9 "$(cat "$state/watchdog.pid")" 2>/dev/null || true
        rm -f "$state/watchdog.pid"
    fi
    if [ -f "$state/server.pid" ]; then
        pid="$(cat "$state/server.pid")"
        if kill -0 "$pid" 2>/dev/null; then
            kill "$pid" 2>/dev/null || true
            for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
            kill -9 "$pid" 2>/dev/null || true
        fi
        rm -f "$state/server.pid"
    fi
    # The log outlives the state folder, for a failed test run to look at.
    [ -f "$state/server.log" ] && cp "$state/server.log" "$var/last-server.log" 2>/dev/null
    rm -f "$state/url" "$state/db.sqlite3" "$state/db.sqlite3-wal" "$state/db.sqlite3-shm"
}

start() {
    local state="$1"
    mkdir -p "$state"
    [ -f "$state/server.pid" ] && stop "$state"
    prepare
    cp "$TEMPLATE" "$state/db.sqlite3"
    local port url pid
    for _ in 1 2 3; do
        port="$(free_port)"
        url="http://127.0.0.1:$port"
        (close_inherited; cd "$server" && JSONAPI_TEST_DB="$state/db.sqlite3" exec "$PY" -c "$unblock" manage.py runserver --noreload "127.0.0.1:$port") \
            </dev/null >"$state/server.log" 2>&1 &
        pid=$!
        echo "$pid" >"$state/server.pid"
        if wait_ready "$url"; then
            if [ -n "${JSONAPI_TEST_SERVER_PARENT:-}" ]; then
                (close_inherited
                 parent="$JSONAPI_TEST_SERVER_PARENT"
                 while kill -0 "$parent" 2>/dev/null && kill -0 "$pid" 2>/dev/null; do sleep 2; done
                 kill "$pid" 2>/dev/null; sleep 5; kill -9 "$pid" 2>/dev/null) </dev/null >/dev/null 2>&1 &
                echo $! >"$state/watchdog.pid"
            fi
            echo "$url" >"$state/url"
            echo "$url"
            return 0
        fi
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    echo "test-server: the server did not start; its log:" >&2
    tail -n 30 "$state/server.log" >&2 || true
    exit 1
}

case "${1:-}" in
    install) prepare; echo "test-server: ready ($PY, $TEMPLATE)" >&2 ;;
    start) start "$(mkdir -p "${2:-$var/run}" && cd "${2:-$var/run}" && pwd)" ;;
    stop) stop "${2:-$var/run}" ;;
    *) echo "usage: $0 install | start [STATE_DIR] | stop [STATE_DIR]" >&2; exit 2 ;;
esac
