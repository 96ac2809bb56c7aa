#!/usr/bin/env bash
# The one helper for a private RavenDB server (no Docker, no Debian package): used by
# scripts/services.sh (sourced) and, through scripts/lib/raven-private.mjs, by the tests' own
# servers. The server is RavenDB 4.1 (it reports 4.1.0, build 41001) as shipped in the PyPI
# sdist pyravendb-embedded 4.1.1.4, run by the .NET Core 2.1 runtime of the PyPI wheel
# dotnetcore2 2.1.23; .NET Core 2.1 loads only OpenSSL 1.x (even for plain HTTP: its crypto
# shim is initialised at start) and Debian 12 has OpenSSL 3 only, so the OpenSSL 1.1.1 shared
# libraries that the manylinux wheel psycopg2-binary 2.9.5 bundles are put on LD_LIBRARY_PATH
# under their usual names. All three are fetched by pip with pinned sha256 and unpacked once
# per checkout under .run/raven-dist/; nothing of them is committed. HTTP on 127.0.0.1 only,
# unsecured (RavenDB's own "UnsecuredAccessAllowed", the only setup the pack supports).
#   scripts/raven-private.sh fetch               print the path of Raven.Server.dll (fetched if missing)
#   scripts/raven-private.sh dir <name>          the directory .run/<name> (created), printed
#   scripts/raven-private.sh start <dir> <port>  start on 127.0.0.1:<port>, data in <dir>/data (kept
#                                                across restarts); waits for the server, checks its version
#   scripts/raven-private.sh stop <dir> [secs]   stop exactly the server of <dir> (SIGTERM, then SIGKILL
#                                                after secs, default 60)
#   scripts/raven-private.sh pid <dir>           pid of the running server of <dir>, or nothing
#   scripts/raven-private.sh port <dir>          the port it was last started on
#   scripts/raven-private.sh version             the version the pinned server reports (4.1.0)

wp_raven_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# The pinned packages: name==version and the sha256 of the file PyPI serves. The
# psycopg2-binary wheel is the CPython 3.11 manylinux2014 one whatever python3 runs pip (only
# its bundled OpenSSL libraries are used, never Python code).
WP_RAVEN_SERVER_PKG=pyravendb-embedded==4.1.1.4
WP_RAVEN_SERVER_SHA256=fe65d9f40827934d4521d5a254fd72348970b48bc949055e7929bf1efce26172
WP_RAVEN_DOTNET_PKG=dotnetcore2==2.1.23
WP_RAVEN_DOTNET_SHA256=76c9dea3ebeecfd1485e7f275072c694e856e707527b34af3fdf5f4f8f8f6461
WP_RAVEN_SSL_PKG=psycopg2-binary==2.9.5
WP_RAVEN_SSL_SHA256=bcda1c84a1c533c528356da5490d464a139b6e84eb77cc0b432e38c5c6dd7882
# What the server answers on GET /build/version (FullVersion starts with it).
WP_RAVEN_VERSION=4.1.0

wp_raven_die() { echo "raven-private: $*" >&2; exit 1; }

wp_raven_dist() { echo "$wp_raven_root/.run/raven-dist/4.1.1.4"; }

wp_raven_fetch() {
  local dist; dist=$(wp_raven_dist)
  if [ -f "$dist/.complete" ]; then echo "$dist/server/Raven.Server.dll"; return 0; fi
  local tmp; tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  mkdir -p "$tmp/s" "$tmp/d" "$tmp/o" "$tmp/x"
  echo "raven-private: fetching RavenDB $WP_RAVEN_VERSION ($WP_RAVEN_SERVER_PKG, $WP_RAVEN_DOTNET_PKG, OpenSSL 1.1 of $WP_RAVEN_SSL_PKG from PyPI, 56 MB)" >&2
  local sdist whl ssl
  # scripts/wheel.sh --download: the pinned file, its sha256 checked (the one home of that rule).
  local wheel="$wp_raven_root/scripts/wheel.sh"
  sdist=$("$wheel" --download "$tmp/s" "$WP_RAVEN_SERVER_PKG" "$WP_RAVEN_SERVER_SHA256" --no-binary=:all:) || exit 1
  whl=$("$wheel" --download "$tmp/d" "$WP_RAVEN_DOTNET_PKG" "$WP_RAVEN_DOTNET_SHA256" --only-binary=:all: \
    --platform manylinux1_x86_64 --python-version 3.11) || exit 1
  ssl=$("$wheel" --download "$tmp/o" "$WP_RAVEN_SSL_PKG" "$WP_RAVEN_SSL_SHA256" --only-binary=:all: \
    --platform manylinux2014_x86_64 --python-version 3.11 --implementation cp --abi cp311) || exit 1
  rm -rf "$dist"; mkdir -p "$dist/server" "$dist/dotnet" "$dist/openssl"
  tar -xzf "$sdist" -C "$tmp/x" || wp_raven_die "cannot unpack $sdist"
  cp -a "$tmp/x"/pyravendb-embedded-*/pyravendb_embedded/RavenDBServer/. "$dist/server/" ||
    wp_raven_die "no RavenDBServer folder in $WP_RAVEN_SERVER_PKG"
  python3 - "$whl" "$ssl" "$dist" <<'PY' || wp_raven_die "cannot unpack the runtime or the OpenSSL libraries"
import os, re, shutil, stat, sys, zipfile
whl, ssl, dist = sys.argv[1:4]
with zipfile.ZipFile(whl) as z:
    for m in z.infolist():
        if not m.filename.startswith('dotnetcore2/bin/') or m.is_dir():
            continue
        out = os.path.join(dist, 'dotnet', m.filename[len('dotnetcore2/bin/'):])
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with z.open(m) as src, open(out, 'wb') as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        # zip keeps unix modes in the high 16 bits of external_attr
        mode = (m.external_attr >> 16) & 0o777
        os.chmod(out, mode or 0o644)
# auditwheel renames the bundled libraries (libssl-<hash>.so.1.1) and links libssl to the
# renamed libcrypto: both names are kept, the .NET shim dlopens libssl.so.1.1/libcrypto.so.1.1.
with zipfile.ZipFile(ssl) as z:
    for m in z.infolist():
        r = re.match(r'psycopg2_binary\.libs/(libssl|libcrypto)-[0-9a-f]+\.so\.1\.1$', m.filename)
        if not r:
            continue
        name = os.path.basename(m.filename)
        with z.open(m) as src, open(os.path.join(dist, 'openssl', name), 'wb') as dst:
            shutil.copyfileobj(src, dst)
        os.symlink(name, os.path.join(dist, 'openssl', r.group(1) + '.so.1.1'))
for need in ('libssl.so.1.1', 'libcrypto.so.1.1'):
    if not os.path.exists(os.path.join(dist, 'openssl', need)):
        sys.exit(f'{need} not found in the wheel')
PY
  [ -x "$dist/dotnet/dotnet" ] || wp_raven_die "no dotnet in $WP_RAVEN_DOTNET_PKG"
  [ -f "$dist/server/Raven.Server.dll" ] || wp_raven_die "no Raven.Server.dll in $WP_RAVEN_SERVER_PKG"
  touch "$dist/.complete"
  echo "$dist/server/Raven.Server.dll"
}

wp_raven_dir() { # name (a path under .run/)
  local d="$wp_raven_root/.run/$1"
  mkdir -p "$d/data"
  echo "$d"
}

# pid of the server whose data directory is <dir>/data, verified by its command line (a
# recycled pid of another program is never taken for it).
wp_raven_pid() { # dir
  local pidf="$1/raven.pid" pid
  [ -s "$pidf" ] || return 0
  pid=$(head -n 1 "$pidf")
  [[ "$pid" =~ ^[0-9]+$ ]] || return 0
  kill -0 "$pid" 2>/dev/null || return 0
  tr '\0' '\n' < "/proc/$pid/cmdline" 2>/dev/null | grep -qxF -- "--DataDir=$1/data" || return 0
  echo "$pid"
}

wp_raven_port() { [ -s "$1/port" ] && cat "$1/port"; return 0; }

wp_raven_start() { # dir port
  local dir=$1 port=$2 dll pid v
  dll=$(wp_raven_fetch) || exit 1
  [ -z "$(wp_raven_pid "$dir")" ] || wp_raven_die "a RavenDB server already runs on $dir/data (pid $(wp_raven_pid "$dir"))"
  [[ "$port" =~ ^[0-9]+$ ]] || wp_raven_die "port $port is not a number"
  local dist; dist=$(wp_raven_dist)
  mkdir -p "$dir/data"
  echo "$port" > "$dir/port"
  # DOTNET_SYSTEM_GLOBALIZATION_INVARIANT: .NET Core needs ICU otherwise, which Debian 12
  # ships only in a version 2.1 does not look for. Logs go to <dir>/logs; the console to raven.log.
  # setsid: the server is its own process group, so a Ctrl-C of the caller does not reach it
  # and `stop` signals exactly this pid.
  ( cd "$dist/server" && exec env LD_LIBRARY_PATH="$dist/openssl${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
      DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 DOTNET_CLI_TELEMETRY_OPTOUT=1 \
      setsid "$dist/dotnet/dotnet" "$dll" --non-interactive --ServerUrl="http://127.0.0.1:$port" \
      --Setup.Mode=None --License.Eula.Accepted=true --Security.UnsecuredAccessAllowed=PublicNetwork \
      --Logs.Path="$dir/logs" --DataDir="$dir/data" </dev/null >"$dir/raven.log" 2>&1 ) &
  pid=$!
  echo "$pid" > "$dir/raven.pid"
  # First start ~7 s on a quiet machine; a busy 2-core one can take several times that.
  local body=
  for _ in $(seq 1 240); do
    kill -0 "$pid" 2>/dev/null || break
    body=$(curl -fsS --max-time 2 "http://127.0.0.1:$port/build/version" 2>/dev/null) && break
    sleep 0.5
  done
  if [ -z "$body" ]; then
    wp_raven_stop "$dir" 10
    grep -q 'address already in use' "$dir/raven.log" 2>/dev/null &&
      wp_raven_die "RavenDB could not bind 127.0.0.1:$port (address already in use), see $dir/raven.log"
    wp_raven_die "RavenDB did not answer on 127.0.0.1:$port within 120 s: $(grep -v '^ *$' "$dir/raven.log" | tail -n 1 | cut -c1-200) (log: $dir/raven.log)"
  fi
  v=$(printf '%s' "$body" | sed -n 's/.*"FullVersion":"\([^"]*\)".*/\1/p')
  case "$v" in
    "$WP_RAVEN_VERSION"*) ;;
    *) wp_raven_stop "$dir" 10; wp_raven_die "the server on 127.0.0.1:$port reports version '${v:-?}', expected $WP_RAVEN_VERSION" ;;
  esac
  echo "$pid"
}

wp_raven_stop() { # dir [seconds]
  local dir=$1 secs=${2:-60} pid
  pid=$(wp_raven_pid "$dir")
  [ -n "$pid" ] || { rm -f "$dir/raven.pid"; return 0; }
  # A server stopped with SIGSTOP (the fault tests) acts on SIGTERM only once it runs again.
  kill -CONT "$pid" 2>/dev/null || true
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 $((secs * 4))); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid" 2>/dev/null || true
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
  fi
  rm -f "$dir/raven.pid"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  cmd=${1:-}; shift || true
  case "$cmd" in
    fetch) wp_raven_fetch ;;
    dir) wp_raven_dir "$@" ;;
    start) wp_raven_start "$@" ;;
    stop) wp_raven_stop "$@" ;;
    pid) wp_raven_pid "$@" ;;
    port) wp_raven_port "$@" ;;
    version) echo "$WP_RAVEN_VERSION" ;;
    *) wp_raven_die "usage: scripts/raven-private.sh fetch|dir|start|stop|pid|port|version … (see the header)" ;;
  esac
fi
