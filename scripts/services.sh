#!/usr/bin/env bash
# Private PostgreSQL, InfluxDB 1.x and mongod for k6-writepath, without Docker.
#
#   scripts/services.sh up      install (apt-get) if missing, start, wait, write .run/env
#   scripts/services.sh down    stop exactly what "up" started (pid files under .run/)
#   scripts/services.sh status  say what runs
#
# Everything lives under .run/ in the repo; ports are our own (not 5432/8086) so a
# database the user already runs is never touched, and below Linux's ephemeral port range
# (32768-60999), so an outgoing connection cannot hold them by chance. Knobs (environment):
#   WP_PG_PORT      default 17432   PostgreSQL port on 127.0.0.1
#   WP_INFLUX_PORT  default 17086   InfluxDB HTTP port on 127.0.0.1 (RPC port = this + 2)
#   WP_MONGO_PORT   default 17017   mongod port on 127.0.0.1
#   WP_MONGO_CACHE_GB default 0.5   mongod --wiredTigerCacheSizeGB (0.25 to 1024; MongoDB's own
#                                   default would be half of (RAM - 1 GB), too much for a laptop)
#   WP_RAVEN_PORT   default 17080   RavenDB 4.1 HTTP port on 127.0.0.1 (unsecured: any local user
#                                   can read and write it)
# `status` and .run/env name the ports the servers were started on (read from what runs), not
# these knobs.
# What `up` leaves running it says in its last line: both servers listen on 127.0.0.1 only;
# PostgreSQL asks for the random password in .run/pg/password (mode 600, also in .run/env);
# InfluxDB has no authentication (any local user can read and write its metrics); mongod asks
# for the random password in .run/mongo/password (mode 600, also in .run/env).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
run="$root/.run"
pg_port=${WP_PG_PORT:-17432}
influx_port=${WP_INFLUX_PORT:-17086}
mongo_port=${WP_MONGO_PORT:-17017}
mongo_cache=${WP_MONGO_CACHE_GB:-0.5}
raven_port=${WP_RAVEN_PORT:-17080}

die() { echo "services: $*" >&2; exit 1; }
# shellcheck source=scripts/pg-private.sh
. "$root/scripts/pg-private.sh"
# shellcheck source=scripts/mongo-private.sh
. "$root/scripts/mongo-private.sh"
# shellcheck source=scripts/raven-private.sh
. "$root/scripts/raven-private.sh"

check_port_knob() { # name value
  [[ "$2" =~ ^[0-9]+$ ]] && (( $2 >= 1024 && $2 <= 65533 )) ||
    { echo "services: $1=$(wp_shown "$2") is not allowed: use a port number between 1024 and 65533" >&2; exit 107; }
}
check_port_knob WP_PG_PORT "$pg_port"
check_port_knob WP_INFLUX_PORT "$influx_port"
check_port_knob WP_MONGO_PORT "$mongo_port"
check_port_knob WP_RAVEN_PORT "$raven_port"
[[ "$mongo_cache" =~ ^[0-9]+(\.[0-9]+)?$ ]] && awk -v c="$mongo_cache" 'BEGIN { exit !(c >= 0.25 && c <= 1024) }' ||
  { echo "services: WP_MONGO_CACHE_GB=$(wp_shown "$mongo_cache") is not allowed: a number of GB from 0.25 to 1024 (mongod --wiredTigerCacheSizeGB)" >&2; exit 107; }

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# A port another program listens on: one line before anything starts (a port held otherwise,
# e.g. by a TIME-WAIT socket, shows when the server fails to bind it: same line, with why).
check_port_free() { # knob value [port]
  port_busy "${3:-$2}" && die "$(wp_port_unusable "$@")"
  return 0
}

apt_install() { # packages...
  [ "$(id -u)" = 0 ] || die "need root to apt-get install $*; install them yourself or run as root"
  echo "services: installing $* with apt-get" >&2
  if [ ! -f "$run/.apt-updated" ]; then
    apt-get update -qq >/dev/null
    mkdir -p "$run"; touch "$run/.apt-updated"
  fi
  # The Debian packages try to start system-wide services; we run our own private ones. A
  # policy-rc.d that was already there is put back afterwards.
  local saved=
  if [ -e /usr/sbin/policy-rc.d ]; then saved=$(mktemp); cp -p /usr/sbin/policy-rc.d "$saved"; fi
  restore_policy() { if [ -n "$saved" ]; then cp -p "$saved" /usr/sbin/policy-rc.d; rm -f "$saved"; else rm -f /usr/sbin/policy-rc.d; fi; }
  printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null ||
    { restore_policy; die "apt-get install $* failed"; }
  restore_policy
}

pid_alive() { [ -f "$1" ] && kill -0 "$(head -n 1 "$1")" 2>/dev/null; }

# The server itself: scripts/pg-private.sh (shared with the tests' and the RAM experiment's
# own servers), data in .run/pg.
pg_up() {
  [ -n "$(wp_pg_bindir)" ] || apt_install postgresql
  local dir; dir=$(wp_pg_dir pg)
  if pid_alive "$dir/data/postmaster.pid"; then return 0; fi
  check_port_free WP_PG_PORT "$pg_port"
  wp_pg_init "$dir"
  PG_PRIVATE_PORT_KNOB=WP_PG_PORT wp_pg_start "$dir" "$pg_port" "-c max_connections=200"
  wp_pg_ensure_db "$dir" "$pg_port" writepath
}

pg_down() {
  wp_pg_stop "$run/pg"
}

influx_up() {
  command -v influxd >/dev/null || apt_install influxdb
  local dir="$run/influxdb"; mkdir -p "$dir"
  if pid_alive "$dir/influxd.pid"; then return 0; fi
  check_port_free WP_INFLUX_PORT "$influx_port"
  check_port_free WP_INFLUX_PORT "$influx_port" "$((influx_port + 2))"
  cat > "$dir/influxdb.conf" <<CONF
reporting-disabled = true
bind-address = "127.0.0.1:$((influx_port + 2))"
[meta]
  dir = "$dir/meta"
[data]
  dir = "$dir/data"
  wal-dir = "$dir/wal"
  query-log-enabled = false
[http]
  bind-address = "127.0.0.1:$influx_port"
  log-enabled = false
[monitor]
  store-enabled = false
[continuous_queries]
  enabled = false
CONF
  nohup influxd -config "$dir/influxdb.conf" -pidfile "$dir/influxd.pid" >"$dir/influxd.log" 2>&1 &
  local pid=$!
  for _ in $(seq 1 60); do
    curl -fsS "http://127.0.0.1:$influx_port/ping" >/dev/null 2>&1 && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  if curl -fsS "http://127.0.0.1:$influx_port/ping" >/dev/null 2>&1; then
    curl -fsS -XPOST "http://127.0.0.1:$influx_port/query" --data-urlencode 'q=CREATE DATABASE k6' >/dev/null
    return 0
  fi
  kill "$pid" 2>/dev/null || true
  rm -f "$dir/influxd.pid"
  # influxd: "listen tcp 127.0.0.1:17086: bind: address already in use"
  local bound; bound=$(grep -o 'listen tcp 127.0.0.1:[0-9]*: bind: address already in use' "$dir/influxd.log" | head -n 1 | sed 's/^listen tcp 127.0.0.1:\([0-9]*\).*/\1/')
  if [ -n "$bound" ]; then
    die "$(wp_port_unusable WP_INFLUX_PORT "$influx_port" "$bound" "InfluxDB could not bind it")"
  fi
  die "InfluxDB did not answer on 127.0.0.1:$influx_port: $(grep -v '^ *$' "$dir/influxd.log" | tail -n 1 | cut -c1-200) (log: $dir/influxd.log)"
}

influx_down() {
  local pidf="$run/influxdb/influxd.pid"
  pid_alive "$pidf" || return 0
  local pid; pid=$(head -n 1 "$pidf"); kill "$pid"
  for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
  rm -f "$pidf"
}

# mongod: scripts/mongo-private.sh (shared with the tests' and the experiments' own servers),
# data in .run/mongo; the port it runs on is kept in .run/mongo/port for write_env.
mongo_up() {
  local dir; dir=$(wp_mongo_dir mongo)
  # Running and set up (its port recorded): nothing to do. Running without a port file: a start
  # that failed half way (no user yet): stopped, and started again below.
  if [ -n "$(wp_mongo_pid "$dir")" ]; then
    [ ! -s "$dir/port" ] || return 0
    wp_mongo_stop "$dir"
  fi
  check_port_free WP_MONGO_PORT "$mongo_port"
  wp_mongo_init "$dir"
  if ! ( wp_mongo_start "$dir" "$mongo_port" "$mongo_cache" ); then
    wp_mongo_stop "$dir" >/dev/null 2>&1 || true
    # mongod: "Failed to set up listener" … "Address already in use" (a port held otherwise,
    # e.g. by a TIME-WAIT socket)
    grep -q 'Address already in use' "$dir/mongod.log" 2>/dev/null && [ -z "$(wp_mongo_pid "$dir")" ] &&
      die "$(wp_port_unusable WP_MONGO_PORT "$mongo_port" "$mongo_port" "mongod could not bind it")"
    exit 1
  fi
  echo "$mongo_port" > "$dir/port"
}

mongo_down() {
  wp_mongo_stop "$run/mongo"
}

# RavenDB 4.1: scripts/raven-private.sh (shared with the tests' own servers), data in
# .run/raven (kept by `down`/`up`); its port in .run/raven/port.
raven_up() {
  local dir; dir=$(wp_raven_dir raven)
  if [ -n "$(wp_raven_pid "$dir")" ]; then return 0; fi
  check_port_free WP_RAVEN_PORT "$raven_port"
  ( wp_raven_start "$dir" "$raven_port" >/dev/null ) || exit 1
}

raven_down() {
  wp_raven_stop "$run/raven"
}

write_env() {
  # Ports of the servers actually running (an earlier `up` may have used other WP_*_PORTs):
  # line 4 of postmaster.pid is PostgreSQL's port; InfluxDB's is in the config we wrote.
  pg_port=$(sed -n 4p "$run/pg/data/postmaster.pid")
  influx_port=$(sed -n 's/^  bind-address = "127.0.0.1:\([0-9]*\)"$/\1/p' "$run/influxdb/influxdb.conf")
  umask 077
  cat > "$run/env" <<ENV
# Written by scripts/services.sh up: the private services of this checkout.
PG_URL=$(wp_pg_url "$run/pg" "$pg_port" writepath)
INFLUX_URL=http://127.0.0.1:$influx_port/k6
MONGO_URL=$(wp_mongo_url "$run/mongo" "$(cat "$run/mongo/port")")
RAVEN_URL=http://127.0.0.1:$(wp_raven_port "$run/raven")
ENV
}

# .run made by an earlier `scripts/run` (its RUN_SECRET, scripts/common.sh) may be mode 700:
# the postgres user, which runs the server as root's stand-in, must traverse it to reach its
# data and password files. The files that are secret are mode 600 themselves.
open_run_dir() {
  mkdir -p "$run"
  [ "$(id -u)" = 0 ] && chmod go+x "$run"
  return 0
}

# What runs, with the port it was started on (not the WP_* knobs of this shell).
status() {
  local p
  if pid_alive "$run/pg/data/postmaster.pid"; then echo "postgresql: running on $(sed -n 4p "$run/pg/data/postmaster.pid")"; else echo "postgresql: stopped"; fi
  if pid_alive "$run/influxdb/influxd.pid"; then
    p=$(sed -n 's/^  bind-address = "127.0.0.1:\([0-9]*\)"$/\1/p' "$run/influxdb/influxdb.conf"); echo "influxdb: running on $p"
  else echo "influxdb: stopped"; fi
  if [ -n "$(wp_mongo_pid "$run/mongo")" ]; then echo "mongod: running on $(cat "$run/mongo/port")"; else echo "mongod: stopped"; fi
  if [ -n "$(wp_raven_pid "$run/raven")" ]; then echo "ravendb: $WP_RAVEN_VERSION running on $(wp_raven_port "$run/raven")"; else echo "ravendb: stopped"; fi
}

case "${1:-}" in
  up)     command -v curl >/dev/null || apt_install curl ca-certificates
          open_run_dir
          pg_up; influx_up; mongo_up; raven_up; write_env
          echo "services: left running until \`make down\`: PostgreSQL on 127.0.0.1:$pg_port (password in .run/pg/password, mode 600), InfluxDB on 127.0.0.1:$influx_port (no authentication: any local user can read and write its metrics), mongod $WP_MONGO_VERSION on 127.0.0.1:$(cat "$run/mongo/port") (user $WP_MONGO_USER, password in .run/mongo/password, mode 600), RavenDB $WP_RAVEN_VERSION on 127.0.0.1:$(wp_raven_port "$run/raven") (unsecured: any local user can read and write it); URLs in .run/env" ;;
  down)   raven_down; mongo_down; influx_down; pg_down; echo "services: stopped" ;;
  status) status ;;
  *)      die "usage: scripts/services.sh up|down|status" ;;
esac
