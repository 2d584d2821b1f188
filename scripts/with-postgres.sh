#!/usr/bin/env bash
# Runs a command with a throwaway PostgreSQL server.
#
#   scripts/with-postgres.sh swift test --filter DirectoryTests
#
# Starts PostgreSQL (Debian's packages, /usr/lib/postgresql/<version>/bin) in a temporary folder
# on a free 127.0.0.1 port, with trust authentication for the user "onthemap", exports
# ONTHEMAP_TEST_POSTGRES_URL=postgres://onthemap@127.0.0.1:PORT/postgres?sslmode=disable,
# runs "$@", then always stops the server and removes the folder. Exits with the command's code.
# PostgreSQL refuses to run as root: as root, the server runs as the "postgres" user (or "nobody").
set -euo pipefail

if [[ $# -eq 0 ]]; then
    echo "usage: $0 COMMAND [ARGS...]" >&2
    exit 2
fi

pg_bin="${PG_BIN:-}"
if [[ -z "$pg_bin" ]]; then
    for candidate in /usr/lib/postgresql/*/bin; do
        [[ -x "$candidate/initdb" ]] && pg_bin="$candidate"
    done
fi
if [[ -z "$pg_bin" || ! -x "$pg_bin/initdb" ]]; then
    echo "with-postgres: no PostgreSQL found (apt-get install -y postgresql)" >&2
    exit 2
fi

run_as=()
owner="$(id -un)"
if [[ "$(id -u)" -eq 0 ]]; then
    if id postgres >/dev/null 2>&1; then owner=postgres; else owner=nobody; fi
    run_as=(runuser -u "$owner" --)
fi

free_port() {
    if command -v python3 >/dev/null 2>&1; then
        python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
        return
    fi
    local port
    for _ in $(seq 1 100); do
        port=$((20000 + RANDOM % 40000))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "$port"
            return
        fi
    done
    echo "with-postgres: no free port found" >&2
    return 1
}

workdir="$(mktemp -d /tmp/onthemap-pg.XXXXXX)"
chmod 700 "$workdir"
chown "$owner" "$workdir"
started=0

cleanup() {
    local status=$?
    if [[ $started -eq 1 ]]; then
        "${run_as[@]}" "$pg_bin/pg_ctl" -D "$workdir/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$workdir"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"${run_as[@]}" "$pg_bin/initdb" -D "$workdir/data" -U onthemap --auth=trust --encoding=UTF8 --locale=C \
    --no-sync >"$workdir/initdb.log" 2>&1 || {
    cat "$workdir/initdb.log" >&2
    exit 1
}

port=""
for attempt in 1 2 3 4 5; do
    port="$(free_port)"
    if "${run_as[@]}" "$pg_bin/pg_ctl" -D "$workdir/data" -l "$workdir/server.log" -w -t 30 \
        -o "-p $port -k $workdir -c listen_addresses=127.0.0.1 -c max_connections=400 -c fsync=off \
-c synchronous_commit=off -c full_page_writes=off" start >/dev/null; then
        started=1
        break
    fi
    echo "with-postgres: start on port $port failed (attempt $attempt)" >&2
done
if [[ $started -ne 1 ]]; then
    cat "$workdir/server.log" >&2 || true
    exit 1
fi

export ONTHEMAP_TEST_POSTGRES_URL="postgres://onthemap@127.0.0.1:$port/postgres?sslmode=disable"
echo "with-postgres: PostgreSQL $("$pg_bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port" >&2

set +e
"$@"
status=$?
set -e
exit "$status"
