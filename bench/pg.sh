#!/usr/bin/env bash
# A private PostgreSQL for `make bench` under .run/bench/pg on BENCH_PG_PORT (default 55499),
# so the CPU the benchmark attributes to "the server" is only its own (the shared instance
# of `make up` also serves other runs and tests). Same Debian PostgreSQL binaries, defaults.
#   bench/pg.sh up     -> prints the URL      bench/pg.sh down
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
port=${BENCH_PG_PORT:-55499}
dir=$root/.run/bench/pg
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$bin" ] || { echo "bench/pg.sh: PostgreSQL binaries not found (make up installs them)" >&2; exit 1; }
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
case "${1:-}" in
  up)
    mkdir -p "$dir"; [ "$(id -u)" = 0 ] && chown postgres:postgres "$dir"
    if [ ! -f "$dir/data/PG_VERSION" ]; then
      # trust on loopback: a throw-away benchmark instance that listens on 127.0.0.1 only
      as_pg "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 >"$dir/initdb.log" 2>&1
    fi
    if ! as_pg "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
      as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=" start >/dev/null
    fi
    psql -h 127.0.0.1 -p "$port" -U postgres -d postgres -Atqc "select 1 from pg_database where datname='bench'" | grep -q 1 ||
      psql -h 127.0.0.1 -p "$port" -U postgres -d postgres -qc 'create database bench'
    echo "postgres://postgres@127.0.0.1:$port/bench?sslmode=disable"
    ;;
  pid) head -1 "$dir/data/postmaster.pid" ;;
  down) [ -f "$dir/data/postmaster.pid" ] && as_pg "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true ;;
  *) echo "usage: bench/pg.sh up|pid|down" >&2; exit 2 ;;
esac
