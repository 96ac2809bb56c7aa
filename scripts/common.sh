# Shared by the pack's bash scripts (sourced: . "$root/scripts/common.sh") and, for
# .run/env, by its Node scripts (scripts/run-env.mjs runs `scripts/common.sh --print-env`).
# Bash only: scripts/run must also work in the k6 image, which has no Node.

# The one reader of .run/env (written by `scripts/services.sh up`): KEY=value lines with keys of
# A-Z and _; anything else is ignored. Prints the lines it accepts.
wp_env_lines() {
  local file=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.run/env} k v
  [ -f "$file" ] || return 0
  while IFS='=' read -r k v; do
    [[ "$k" =~ ^[A-Z_]+$ ]] || continue
    printf '%s=%s\n' "$k" "$v"
  done < "$file"
}

# Exports each .run/env value whose variable is not set: the environment wins. A variable set to
# the empty string is left empty (issue 27 class 6, docs/configuration.md "Empty values"): k6
# reads it as unset — INFLUX_URL= is no InfluxDB, PG_URL= is refused as not given — instead of
# the wrapper quietly aiming the run at the private services of `make up`.
wp_run_env() {
  local line k
  while IFS= read -r line; do
    k=${line%%=*}
    [ -n "${!k+set}" ] || export "$line"
  done < <(wp_env_lines "$@")
}

# RUN_ID: the same rule as lib/config.js KNOBS.RUN_ID (test/unit/scripts-over-lib.test.mjs keeps the
# two in step), and the same generated form as lib/config.js newRunId(): UTC clock + 4 hex.
WP_RUN_ID_RE='^[a-z0-9][a-z0-9_]{0,31}$'
wp_new_run_id() {
  echo "$(date -u +%Y%m%d%H%M%S)_$(od -An -N2 -tx2 /dev/urandom | tr -d ' ')"
}
# wp_check_run_id <who> <id>: one line and exit 107 (bad input) unless id is a valid RUN_ID.
wp_check_run_id() {
  [[ "$2" =~ $WP_RUN_ID_RE ]] && return 0
  echo "$1: RUN_ID=\"$2\" is not allowed: 1-32 characters a-z 0-9 _ (starting with a letter or digit)" >&2
  exit 107
}

# wp_check_scenario <who> <path>: one line and exit 107 (bad input) unless the scenario file exists.
wp_check_scenario() {
  [ -f "$2" ] && return 0
  echo "$1: scenario \"$2\" is not allowed: no such file; one of $(cd "$(dirname "${BASH_SOURCE[0]}")/.." && echo scenarios/*/*.js)" >&2
  exit 107
}

# Secrets come from the environment only (docs/reliability.md): given with -e they would sit in
# the process list of the wrapper and of k6 (`ps`, readable by every local user) for the whole
# run. Secret are: the knobs lib/config.js declares secret (test/unit/scripts-over-lib.test.mjs
# keeps this list in step), any name ending in PASSWORD, PASSWD, SECRET or TOKEN, and any value
# holding a URL with credentials (scheme://user[:password]@…: a password typed as the user
# name is still a password).
WP_SECRET_KNOBS='PG_URL ARANGO_PASSWORD RUN_SECRET MONGO_URL'
# wp_cli_secret <k6 run args…>: the name of the first -e/--env value that is a secret, or nothing.
wp_cli_secret() {
  local a name value
  while [ $# -gt 0 ]; do
    a=
    case "$1" in
      -e|--env) a=${2:-}; shift ;;
      -e*) a=${1#-e} ;;
      --env=*) a=${1#--env=} ;;
    esac
    shift
    [[ "$a" =~ ^([A-Za-z_][A-Za-z0-9_]*)=(.*)$ ]] || continue
    name=${BASH_REMATCH[1]}; value=${BASH_REMATCH[2]}
    if [[ " $WP_SECRET_KNOBS " == *" $name "* || "$name" =~ (PASSWORD|PASSWD|SECRET|TOKEN)$ || "$value" =~ ^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*@ ]]; then
      printf '%s\n' "$name"
      return 0
    fi
  done
}
# wp_cli_secret_line <name>: the refusal (its value is never shown).
wp_cli_secret_line() {
  printf '%s given with -e is not allowed: a secret on the command line is visible to every local user in the process list for the whole run; export %s=… in the environment (or keep it in .run/env) and run again without -e %s\n' "$1" "$1" "$1"
}

# RUN_SECRET proves that objects are a run's (lib/targets/lifecycle.js): the same value must
# reach every process that may claim them (REUSE of a kept object, the instances and the verify
# step of a distributed run). wp_run_secret exports it from .run/run-secret (32 random hex
# digits, made once, mode 600: other users of the machine cannot read it) unless it is set;
# where .run cannot be written it stays unset (each run then proves only its own objects).
wp_run_secret() {
  [ -n "${RUN_SECRET:-}" ] && return 0
  local dir; dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.run
  if [ ! -s "$dir/run-secret" ]; then
    # .run itself keeps the default mode: the postgres user of scripts/pg-private.sh must
    # traverse it; the secret is mode 600 by the umask below.
    mkdir -p "$dir" 2>/dev/null
    ( umask 077; od -An -N16 -tx1 /dev/urandom | tr -d ' \n' > "$dir/run-secret.$$" &&
      mv -n "$dir/run-secret.$$" "$dir/run-secret"; rm -f "$dir/run-secret.$$" ) 2>/dev/null || return 0
  fi
  [ -s "$dir/run-secret" ] && RUN_SECRET=$(cat "$dir/run-secret") && export RUN_SECRET
  return 0
}

# Ports of the private servers (scripts/services.sh, scripts/pg-private.sh, bench/pg.sh): the
# defaults lie below Linux's ephemeral range (ip_local_port_range, 32768-60999 by default), from
# which every outgoing connection takes its local port, so no client can hold them by chance.
# wp_port_holders <port>: what holds a local TCP port now, read from /proc/net/tcp{,6}, as a
# phrase ("a program listens on it", …), or nothing.
wp_port_holders() {
  local hex; hex=$(printf '%04X' "$1")
  cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk -v p="$hex" '
    $1 ~ /^[0-9]+:$/ { n = split($2, a, ":"); if (a[n] == p) s[$4]++ }
    END {
      if (s["0A"]) { print "a program listens on it"; exit }
      t = s["06"]
      if (t) { print t " " (t > 1 ? "connections that used it as their local port are" : "connection that used it as its local port is") " in TIME-WAIT (the kernel frees the port within 60 s)"; exit }
      for (k in s) o += s[k]
      if (o) print o " " (o > 1 ? "open connections use" : "open connection uses") " it as local port"
    }'
}
# wp_port_ephemeral <port>: "32768-60999" when the port lies in this machine's ephemeral range.
wp_port_ephemeral() {
  local lo hi
  read -r lo hi < /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || return 0
  (( $1 >= lo && $1 <= hi )) && echo "$lo-$hi"
  return 0
}
# wp_port_unusable <knob> <value> [port] [what failed]: the one line that says why a private server
# cannot have the port the knob asks for (or port, one derived from it: InfluxDB's RPC port)
# and what to do; printed on stdout, the caller adds its prefix and exits.
wp_port_unusable() {
  local port=${3:-$2} why eph
  why=$(wp_port_holders "$port"); eph=$(wp_port_ephemeral "$port")
  printf '%s=%s cannot be used: ' "$1" "$2"
  [ "$port" = "$2" ] || printf 'port %s (%s + %s): ' "$port" "$1" "$((port - $2))"
  printf '%s' "${why:-${4:-the server could not bind it}}"
  [ -z "$eph" ] || printf '; it lies in the ephemeral port range %s of this machine, from which outgoing connections take their ports' "$eph"
  printf '; choose another port: export %s=<a free port below 32768>\n' "$1"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  case "${1:-}" in
    --print-env) wp_env_lines "${2:-}" ;;
    --new-run-id) wp_new_run_id ;;
    *) echo "usage: scripts/common.sh --print-env [file] | --new-run-id (or source it)" >&2; exit 2 ;;
  esac
fi
