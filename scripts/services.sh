#!/usr/bin/env bash
# Private PostgreSQL and InfluxDB 1.x for k6-writepath, without Docker.
#
#   scripts/services.sh up      install (apt-get) if missing, start, wait, write .run/env
#   scripts/services.sh down    stop exactly what "up" started (pid files under .run/)
#   scripts/services.sh status  say what runs
#
# Everything lives under .run/ in the repo; ports are our own (not 5432/8086) so a
# database the user already runs is never touched. Knobs (environment):
#   WP_PG_PORT      default 55432   PostgreSQL port on 127.0.0.1
#   WP_INFLUX_PORT  default 58086   InfluxDB HTTP port on 127.0.0.1 (RPC port = this + 2)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
run="$root/.run"
pg_port=${WP_PG_PORT:-55432}
influx_port=${WP_INFLUX_PORT:-58086}

die() { echo "services: $*" >&2; exit 1; }

check_port_knob() { # name value
  [[ "$2" =~ ^[0-9]+$ ]] && (( $2 >= 1024 && $2 <= 65533 )) ||
    die "$1=$2 is not allowed: use a port number between 1024 and 65533"
}
check_port_knob WP_PG_PORT "$pg_port"
check_port_knob WP_INFLUX_PORT "$influx_port"

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

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

pg_bindir() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }

pid_alive() { [ -f "$1" ] && kill -0 "$(head -n 1 "$1")" 2>/dev/null; }

# PostgreSQL refuses to run as root; it runs as the Debian "postgres" user. If that user
# cannot reach .run/ (a clone under /root), the data lives in /var/tmp and .run/pg links to it.
pg_dir() {
  if [ -L "$run/pg" ] || [ -d "$run/pg" ]; then echo "$run/pg"; return; fi
  mkdir -p "$run"
  if [ "$(id -u)" = 0 ] && ! runuser -u postgres -- test -x "$run" 2>/dev/null; then
    local alt="/var/tmp/k6-writepath-$(echo "$root" | md5sum | cut -c1-12)/pg"
    mkdir -p "$alt"; ln -sfn "$alt" "$run/pg"
  else
    mkdir -p "$run/pg"
  fi
  echo "$run/pg"
}

as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

pg_up() {
  [ -n "$(pg_bindir)" ] || apt_install postgresql
  local bin dir; bin=$(pg_bindir); dir=$(pg_dir)
  if pid_alive "$dir/data/postmaster.pid"; then return 0; fi
  port_busy "$pg_port" && die "WP_PG_PORT=$pg_port is already in use by another program; choose a free port"
  if [ ! -f "$dir/data/PG_VERSION" ]; then
    [ "$(id -u)" = 0 ] && chown postgres:postgres "$dir"
    umask 077
    head -c 18 /dev/urandom | base64 | tr -d '/+=' > "$dir/password"
    [ "$(id -u)" = 0 ] && chown postgres "$dir/password"
    as_pg "$bin/initdb" -D "$dir/data" -U postgres --auth-host=scram-sha-256 --auth-local=trust \
      --pwfile="$dir/password" -E UTF8 >"$dir/initdb.log" 2>&1 || die "initdb failed, see $dir/initdb.log"
    umask 022
  fi
  # TCP on loopback only; no unix socket (its path length limit is easy to exceed).
  as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -c port=$pg_port -c unix_socket_directories= -c max_connections=200" \
    start >/dev/null || die "PostgreSQL did not start, see $dir/server.log"
  local pw; pw=$(cat "$dir/password")
  for _ in $(seq 1 60); do
    PGPASSWORD=$pw psql -h 127.0.0.1 -p "$pg_port" -U postgres -d postgres -Atqc 'select 1' >/dev/null 2>&1 && break
    sleep 0.5
  done
  PGPASSWORD=$pw psql -h 127.0.0.1 -p "$pg_port" -U postgres -d postgres -Atqc \
    "select 1 from pg_database where datname='writepath'" | grep -q 1 ||
    PGPASSWORD=$pw psql -h 127.0.0.1 -p "$pg_port" -U postgres -d postgres -qc 'create database writepath' >/dev/null
}

pg_down() {
  local bin dir; bin=$(pg_bindir); dir="$run/pg"
  [ -n "$bin" ] && [ -e "$dir/data/postmaster.pid" ] || return 0
  as_pg "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
}

influx_up() {
  command -v influxd >/dev/null || apt_install influxdb
  local dir="$run/influxdb"; mkdir -p "$dir"
  if pid_alive "$dir/influxd.pid"; then return 0; fi
  port_busy "$influx_port" && die "WP_INFLUX_PORT=$influx_port is already in use by another program; choose a free port"
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
  for _ in $(seq 1 60); do
    curl -fsS "http://127.0.0.1:$influx_port/ping" >/dev/null 2>&1 && break
    sleep 0.5
  done
  curl -fsS "http://127.0.0.1:$influx_port/ping" >/dev/null 2>&1 || die "InfluxDB did not answer, see $dir/influxd.log"
  curl -fsS -XPOST "http://127.0.0.1:$influx_port/query" --data-urlencode 'q=CREATE DATABASE k6' >/dev/null
}

influx_down() {
  local pidf="$run/influxdb/influxd.pid"
  pid_alive "$pidf" || return 0
  local pid; pid=$(head -n 1 "$pidf"); kill "$pid"
  for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
  rm -f "$pidf"
}

write_env() {
  local pw; pw=$(cat "$run/pg/password")
  # Ports of the servers actually running (an earlier `up` may have used other WP_*_PORTs):
  # line 4 of postmaster.pid is PostgreSQL's port; InfluxDB's is in the config we wrote.
  pg_port=$(sed -n 4p "$run/pg/data/postmaster.pid")
  influx_port=$(sed -n 's/^  bind-address = "127.0.0.1:\([0-9]*\)"$/\1/p' "$run/influxdb/influxdb.conf")
  umask 077
  cat > "$run/env" <<ENV
# Written by scripts/services.sh up: the private services of this checkout.
PG_URL=postgres://postgres:$pw@127.0.0.1:$pg_port/writepath?sslmode=disable
INFLUX_URL=http://127.0.0.1:$influx_port/k6
ENV
}

case "${1:-}" in
  up)     command -v curl >/dev/null || apt_install curl ca-certificates
          pg_up; influx_up; write_env
          echo "services: PostgreSQL on 127.0.0.1:$pg_port, InfluxDB on 127.0.0.1:$influx_port (URLs in .run/env)" ;;
  down)   influx_down; pg_down; echo "services: stopped" ;;
  status) pid_alive "$run/pg/data/postmaster.pid" && echo "postgresql: running on $pg_port" || echo "postgresql: stopped"
          pid_alive "$run/influxdb/influxd.pid" && echo "influxdb: running on $influx_port" || echo "influxdb: stopped" ;;
  *)      die "usage: scripts/services.sh up|down|status" ;;
esac
