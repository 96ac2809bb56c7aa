#!/usr/bin/env bash
# The one helper for a private PostgreSQL server (Debian's binaries, no Docker): used by
# scripts/services.sh (sourced), and through scripts/pg-private.mjs by the tests' own servers
# and the experiments' (experiments/ram, experiments/e2). PostgreSQL refuses to run as root, so as root it runs as the Debian
# `postgres` user; when that user cannot traverse the repository path (a clone under /root), the
# data lives under /var/tmp and .run/<name> links to it. TCP on 127.0.0.1 only, no unix socket
# (its path length limit is easy to exceed).
#   scripts/pg-private.sh dir <name>                 the data directory .run/<name> (created), printed
#   scripts/pg-private.sh init <dir> [initdb args]   initdb once; password in <dir>/password
#                                                    (PG_PRIVATE_PASSWORD, or random)
#   scripts/pg-private.sh start <dir> <port> [opts] [cgroup.procs …]
#                                                    start; opts: more server options ("-c k=v …");
#                                                    cgroup.procs files: the helper joins those
#                                                    cgroups first, so the postmaster and every
#                                                    backend it forks are charged to them
#   scripts/pg-private.sh stop <dir> [mode] [secs]   stop (mode fast by default)
#   scripts/pg-private.sh url <dir> <port> <db>      postgres://postgres:<pw>@127.0.0.1:<port>/<db>?sslmode=disable
#   scripts/pg-private.sh ensure-db <dir> <port> <db>  wait for connections, create <db> if missing
#   scripts/pg-private.sh psql <dir> <port> <db> <sql> one query, unaligned tuples only

wp_pg_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/common.sh
. "$wp_pg_root/scripts/common.sh"

wp_pg_die() { echo "pg-private: $*" >&2; exit 1; }

wp_pg_bindir() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }

wp_as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

wp_pg_dir() { # name (a path under .run/)
  local link="$wp_pg_root/.run/$1" parent
  if [ -L "$link" ] || [ -d "$link" ]; then echo "$link"; return; fi
  parent=$(dirname "$link"); mkdir -p "$parent"
  if [ "$(id -u)" = 0 ] && ! runuser -u postgres -- test -x "$parent" 2>/dev/null; then
    local alt; alt="/var/tmp/k6-writepath-$(echo "$wp_pg_root" | md5sum | cut -c1-12)/${1//\//-}"
    mkdir -p "$alt"; ln -sfn "$alt" "$link"
  else
    mkdir -p "$link"
  fi
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$link/"
  echo "$link"
}

wp_pg_init() { # dir [initdb args…]
  local dir=$1 bin; shift; bin=$(wp_pg_bindir)
  [ -n "$bin" ] || wp_pg_die 'PostgreSQL binaries are missing (/usr/lib/postgresql/*/bin): run "make up" once, it installs them'
  [ -f "$dir/data/PG_VERSION" ] && return 0
  ( umask 077
    if [ -n "${PG_PRIVATE_PASSWORD:-}" ]; then printf '%s' "$PG_PRIVATE_PASSWORD" > "$dir/password"
    else head -c 18 /dev/urandom | base64 | tr -d '/+=' > "$dir/password"; fi )
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$dir" "$dir/password"
  wp_as_pg "$bin/initdb" -D "$dir/data" -U postgres --auth-host=scram-sha-256 --auth-local=trust \
    --pwfile="$dir/password" -E UTF8 "$@" >"$dir/initdb.log" 2>&1 || wp_pg_die "initdb failed, see $dir/initdb.log"
}

wp_pg_start() { # dir port [server options] [cgroup.procs files…]
  local dir=$1 port=$2 opts=${3:-} bin f; bin=$(wp_pg_bindir)
  # Only when run as a command (a subshell of its own): sourced, it would move the caller.
  for f in "${@:4}"; do
    [ "${BASH_SOURCE[0]}" = "$0" ] || wp_pg_die "start with cgroups only as a command, not sourced"
    echo $$ > "$f" || wp_pg_die "cannot join the cgroup of $f"
  done
  local from=0; [ -f "$dir/server.log" ] && from=$(wc -c < "$dir/server.log")
  wp_as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 90 \
    -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories= $opts" \
    start >/dev/null 2>&1 || wp_pg_start_failed "$dir" "$port" "$from"
}

# One line saying why the server did not start, from what this start wrote to server.log: a
# port it could not bind (with what holds it: a TIME-WAIT socket is invisible to a connect
# test), else the server's first FATAL line. PG_PRIVATE_PORT_KNOB names the port's knob.
wp_pg_start_failed() { # dir port log-offset
  local new; new=$(tail -c +"$(($3 + 1))" "$1/server.log" 2>/dev/null)
  if grep -q 'could not bind\|could not create any TCP/IP sockets' <<<"$new"; then
    wp_pg_die "$(wp_port_unusable "${PG_PRIVATE_PORT_KNOB:-port}" "$2" "$2" "PostgreSQL could not bind it")"
  fi
  local fatal; fatal=$(grep -m1 -o '\(FATAL\|PANIC\):.*' <<<"$new" || true)
  wp_pg_die "PostgreSQL did not start on port $2${fatal:+: $fatal} (log: $1/server.log)"
}

wp_pg_stop() { # dir [mode] [seconds]
  local dir=$1 bin; bin=$(wp_pg_bindir)
  [ -n "$bin" ] && [ -e "$dir/data/postmaster.pid" ] || return 0
  wp_as_pg "$bin/pg_ctl" -D "$dir/data" -m "${2:-fast}" -w -t "${3:-60}" stop >/dev/null 2>&1 || true
}

wp_pg_url() { # dir port db
  local pw; pw=$(cat "$1/password")
  # Generated passwords are letters and digits; any other is percent-encoded whole.
  [[ "$pw" =~ ^[A-Za-z0-9._~-]+$ ]] || pw=$(printf '%s' "$pw" | od -An -tx1 -v | tr -d ' \n' | sed 's/\(..\)/%\1/g')
  echo "postgres://postgres:$pw@127.0.0.1:$2/$3?sslmode=disable"
}

wp_pg_psql() { # dir port db sql
  PGPASSWORD=$(cat "$1/password") psql -h 127.0.0.1 -p "$2" -U postgres -d "$3" -Atqc "$4"
}

wp_pg_ensure_db() { # dir port db
  for _ in $(seq 1 60); do wp_pg_psql "$1" "$2" postgres 'select 1' >/dev/null 2>&1 && break; sleep 0.5; done
  wp_pg_psql "$1" "$2" postgres "select 1 from pg_database where datname='$3'" | grep -q 1 ||
    wp_pg_psql "$1" "$2" postgres "create database $3" >/dev/null
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  cmd=${1:-}; shift || true
  case "$cmd" in
    dir) wp_pg_dir "$@" ;;
    init) wp_pg_init "$@" ;;
    start) wp_pg_start "$@" ;;
    stop) wp_pg_stop "$@" ;;
    url) wp_pg_url "$@" ;;
    ensure-db) wp_pg_ensure_db "$@" ;;
    psql) wp_pg_psql "$@" ;;
    *) wp_pg_die "usage: scripts/pg-private.sh dir|init|start|stop|url|ensure-db|psql … (see the header)" ;;
  esac
fi
