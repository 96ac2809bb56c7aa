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
# the empty string is left empty (docs/configuration.md "Empty values"): k6
# reads it as unset — INFLUX_URL= is no InfluxDB, PG_URL= is refused as not given — instead of
# the wrapper quietly aiming the run at the private services of `make up`.
wp_run_env() {
  local line k
  while IFS= read -r line; do
    k=${line%%=*}
    [ -n "${!k+set}" ] || export "$line"
  done < <(wp_env_lines "$@")
}

# wp_shown <value>: a value as a refusal shows it, as lib/parse.js shown() does for the JS side:
# quoted, control characters (C0, DEL, C1) escaped so that nothing reaches the terminal raw,
# and cut after 80 characters (a 100 KB value is not echoed whole).
wp_shown() {
  local n=${#1} cut=${1:0:80} out= c i hex
  local LC_ALL=C
  for ((i = 0; i < ${#cut}; i++)); do
    c=${cut:i:1}
    case $c in
      '\') out+='\\' ;;
      '"') out+='\"' ;;
      $'\n') out+='\n' ;;
      $'\t') out+='\t' ;;
      $'\r') out+='\r' ;;
      $'\b') out+='\b' ;;
      $'\f') out+='\f' ;;
      [[:cntrl:]]) printf -v hex '%04x' "'$c"; out+="\\u$hex" ;;
      $'\xc2')
        # U+0080-U+009F (C1) in UTF-8: 0xC2 then 0x80-0x9F
        case ${cut:i+1:1} in
          [$'\x80'-$'\x9f']) printf -v hex '%04x' "$(( $(printf '%d' "'${cut:i+1:1}") & 0xff ))"; out+="\\u$hex"; i=$((i + 1)) ;;
          *) out+=$c ;;
        esac ;;
      [$'\xc3'-$'\xf4'])
        # the lead byte of another character: its continuation bytes (0x80-0xBF) belong to it
        out+=$c
        while [[ ${cut:i+1:1} == [$'\x80'-$'\xbf'] ]]; do out+=${cut:i+1:1}; i=$((i + 1)); done ;;
      [$'\x80'-$'\x9f']) printf -v hex '%04x' "$(( $(printf '%d' "'$c") & 0xff ))"; out+="\\u$hex" ;;
      *) out+=$c ;;
    esac
  done
  if [ "$n" -gt 80 ]; then printf '"%s…" (%s characters)' "$out" "$n"; else printf '"%s"' "$out"; fi
}

# Signals (docs/reliability.md "Exit codes"). k6 v1.1.0 answers a first SIGINT or SIGTERM by
# stopping the VUs and still running teardown and handleSummary (exit 105); a second one stops it
# at once, with neither. A Ctrl-C or `timeout` signals the caller's whole process group, so a
# child in that group would get the signal twice (once from the group, once forwarded) and lose
# its teardown: the wrappers start k6 (and the gateway) in a session of their own ("${WP_DETACH[@]}"
# cmd … &) and forward each signal they get, once, with wp_wait_child.
WP_DETACH=(); command -v setsid >/dev/null 2>&1 && WP_DETACH=(setsid)
WP_SIGNALS=()
# wp_wait_child <pid> [who]: waits for pid to end, forwarding INT, TERM and HUP (as TERM) to it;
# who: the prefix of the one line said at the first signal (nothing said without it). Returns
# the child's exit code; WP_SIGNALS lists the signals received. The caller's traps for these
# signals are set again afterwards to what WP_SIGNAL_TRAP names (default: none).
wp_wait_child() {
  local pid=$1 code=0 s
  WP_FORWARD_PID=$pid WP_FORWARD_WHO=${2:-}
  for s in INT TERM HUP; do trap "wp_forward $s" "$s"; done
  wait "$pid" || code=$?
  while kill -0 "$pid" 2>/dev/null; do code=0; wait "$pid" || code=$?; done
  for s in INT TERM HUP; do if [ -n "${WP_SIGNAL_TRAP:-}" ]; then trap "$WP_SIGNAL_TRAP $s" "$s"; else trap - "$s"; fi; done
  return "$code"
}
# Each signal is passed on as TERM: k6 treats INT and TERM alike, and a child that is itself a
# wrapper (REPEAT's repetitions, run-distributed's instances) was started in the background by a
# non-interactive bash, which starts it with SIGINT ignored (POSIX; bash cannot trap it then).
wp_forward() {
  WP_SIGNALS+=("SIG$1")
  local p; for p in $WP_FORWARD_PID; do kill -s TERM "$p" 2>/dev/null || true; done
  [ -n "$WP_FORWARD_WHO" ] || return 0
  if [ ${#WP_SIGNALS[@]} -eq 1 ]; then
    echo "$WP_FORWARD_WHO: SIG$1 received: k6 stops the run, runs its teardown (if setup had finished) and writes the summaries (exit 105); a second signal stops it at once, without them" >&2
  elif [ ${#WP_SIGNALS[@]} -eq 2 ]; then
    echo "$WP_FORWARD_WHO: a second signal (SIG$1): passed on to k6, which stops at once unless it took both as one" >&2
  fi
}

# The RUN_ID rule and the secret-on-the-command-line rule, generated from their JS homes
# (lib/knobs.js, scripts/lib/cli-secrets.mjs): bash reads them, it has no copy of its own.
. "$(dirname "${BASH_SOURCE[0]}")/lib/rules.sh"

# A generated RUN_ID: the same form as lib/config.js newRunId() (UTC clock + 4 hex); a second
# home because scripts/run works where Node is missing (a unit test holds both to one shape).
wp_new_run_id() {
  echo "$(date -u +%Y%m%d%H%M%S)_$(od -An -N2 -tx2 /dev/urandom | tr -d ' ')"
}
# wp_check_run_id <who> <id>: one line and exit 107 (bad input) unless id is a valid RUN_ID.
wp_check_run_id() {
  [[ "$2" =~ $WP_RUN_ID_RE ]] && return 0
  echo "$1: RUN_ID=$(wp_shown "$2") is not allowed: $WP_RUN_ID_ALLOWED" >&2
  exit 107
}

# wp_check_scenario <who> <path>: one line and exit 107 (bad input) unless the scenario file exists.
wp_check_scenario() {
  [ -f "$2" ] && return 0
  echo "$1: scenario $(wp_shown "$2") is not allowed: no such file; one of $(cd "$(dirname "${BASH_SOURCE[0]}")/.." && echo scenarios/*/*.js)" >&2
  exit 107
}

# Secrets come from the environment only (docs/reliability.md): given with -e they would sit in
# the process list of the wrapper and of k6 for the whole run. What is secret: scripts/lib/rules.sh.
# k6's command line as k6 itself reads it (spf13/pflag under cobra: --name=value, --name value,
# -n value, -nvalue, -n=value, short flags combined as in -qe X=1 or -qu5, `--` ends the flags,
# flags before and after the script alike), so that what the wrappers refuse cannot slip through
# another spelling. The flags of `k6 run` v1.1.0 (`k6 run --help`): those below take a value,
# --http-debug takes one only as --http-debug=…, every other flag takes none.
WP_K6_VALUE_FLAGS=' vus duration iterations stage execution-segment execution-segment-sequence max-redirects batch batch-per-host rps user-agent min-iteration-duration blacklist-ip block-hostnames summary-trend-stats summary-time-unit system-tags tag console-output local-ips dns compatibility-mode type env summary-mode summary-export traces-output out address config log-format log-output secret-source '
wp_k6_short() {
  case "$1" in
    u) echo vus ;; d) echo duration ;; i) echo iterations ;; s) echo stage ;; p) echo paused ;; w) echo throw ;;
    t) echo type ;; e) echo env ;; o) echo out ;; l) echo linger ;; h) echo help ;; a) echo address ;;
    c) echo config ;; q) echo quiet ;; v) echo verbose ;; *) echo "short-$1" ;;
  esac
}
# wp_k6_args <k6 run args…>: WP_K6_OPTS=(name=value …) for every flag given (long names; a flag
# without a value as name=), WP_K6_ENVS=(NAME=value …) for every -e/--env, both in order.
wp_k6_args() {
  WP_K6_OPTS=(); WP_K6_ENVS=()
  local a name val rest c
  while [ $# -gt 0 ]; do
    a=$1; shift
    case "$a" in
      --) break ;;
      --*=*) name=${a%%=*}; name=${name#--}; val=${a#*=} ;;
      --?*)
        name=${a#--}; val=
        if [[ "$WP_K6_VALUE_FLAGS" == *" $name "* ]] && [ $# -gt 0 ]; then val=$1; shift; fi ;;
      -?*)
        rest=${a#-}
        while [ -n "$rest" ]; do
          c=${rest:0:1}; rest=${rest:1}; name=$(wp_k6_short "$c"); val=
          if [ "${rest:0:1}" = = ] && [ ${#rest} -gt 1 ]; then val=${rest:1}; rest=
          elif [[ "$WP_K6_VALUE_FLAGS" == *" $name "* ]]; then
            if [ -n "$rest" ]; then val=$rest; rest=; elif [ $# -gt 0 ]; then val=$1; shift; fi
          fi
          WP_K6_OPTS+=("$name=$val")
          [ "$name" != env ] || WP_K6_ENVS+=("$val")
        done
        continue ;;
      *) continue ;;
    esac
    WP_K6_OPTS+=("$name=$val")
    [ "$name" != env ] || WP_K6_ENVS+=("$val")
  done
}

# wp_cli_bad_name <k6 run args…>: the refusal of the first -e/--env name k6 itself would refuse
# (anything but ASCII letters, digits and _: k6 exits 255 "invalid environment variable name"
# before the scenario's own check of unknown names, lib/env-names.js, can say which knob was
# meant), as that check words it; or nothing. The value is not shown (it may be a secret).
wp_cli_bad_name() {
  local a name ascii mean= root
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  wp_k6_args "$@"
  for a in "${WP_K6_ENVS[@]}"; do
    name=${a%%=*}
    [[ "$name" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] && continue
    # DÖCS → DOCS: named only when that is a knob of docs/configuration.md's table
    ascii=$(printf '%s' "$name" | iconv -f UTF-8 -t ASCII//TRANSLIT 2>/dev/null | tr -cd 'A-Za-z0-9_') || ascii=
    [ -z "$ascii" ] || ! grep -q "^| \`$ascii\` |" "$root/docs/configuration.md" 2>/dev/null || mean=": did you mean $ascii?"
    printf '%s is not a knob of k6-writepath (a name of ASCII letters, digits and _ is needed: k6 refuses any other, IGNORE_ENV cannot pass it)%s (knobs: docs/configuration.md)\n' "$(wp_shown "$name")" "$mean"
    return 0
  done
}

# wp_cli_secret <k6 run args…>: the name of the first -e/--env value that is a secret, or nothing.
wp_cli_secret() {
  local a name value
  wp_k6_args "$@"
  for a in "${WP_K6_ENVS[@]}"; do
    [[ "$a" =~ ^([A-Za-z_][A-Za-z0-9_]*)=(.*)$ ]] || continue
    name=${BASH_REMATCH[1]}; value=${BASH_REMATCH[2]}
    if [[ " $WP_SECRET_KNOBS " == *" $name "* || "$name" =~ $WP_SECRET_NAME_RE || "$value" =~ $WP_SECRET_VALUE_RE ]]; then
      printf '%s\n' "$name"
      return 0
    fi
  done
}

# The k6 options that would replace or bend the plan the knobs make (--vus, --iterations,
# --duration, --stage and their K6_* variables: k6 drops --vus without a word when a script
# defines scenarios) and --http-debug (it prints credentials) are refused before k6 starts.
# wp_cli_plan_flag <k6 run args…>: the refusal line, or nothing.
wp_cli_plan_flag() {
  local o name val allow=${ALLOW_HTTP_DEBUG:-} debug= f
  wp_k6_args "$@"
  for o in "${WP_K6_ENVS[@]}"; do [[ "$o" == ALLOW_HTTP_DEBUG=* ]] && allow=${o#ALLOW_HTTP_DEBUG=}; done
  for o in "${WP_K6_OPTS[@]}"; do
    name=${o%%=*}
    case "$name" in
      vus) echo "--vus is not allowed: the knobs plan the run and k6 would replace or ignore that plan; use -e VUS=… (or STAGES, MAX_VUS) instead"; return ;;
      iterations) echo "--iterations is not allowed: the knobs plan the run and k6 would replace or ignore that plan; use the plan's knobs (DOCS, OVERWRITE_BATCHES, MIXED_BATCHES, REQUESTS) instead"; return ;;
      duration) echo "--duration is not allowed: the knobs plan the run and k6 would replace or ignore that plan; use -e MAX_DURATION=… or -e STAGES=… instead"; return ;;
      stage) echo "--stage is not allowed: the knobs plan the run and k6 would replace or ignore that plan; use -e STAGES=… or -e RATE_STAGES=… instead"; return ;;
      http-debug) debug="--http-debug${o#http-debug}"; [ "$debug" != "--http-debug=" ] || debug=--http-debug ;;
    esac
  done
  for f in K6_VUS:vus K6_ITERATIONS:iterations K6_DURATION:duration K6_STAGES:stage; do
    name=${f%%:*}
    [ -z "${!name:-}" ] || { echo "$name=$(wp_shown "${!name}") is not allowed (k6's --${f#*:}): the knobs plan the run and k6 would replace or ignore that plan; unset it and use the knobs instead"; return; }
  done
  [ -n "$debug" ] || { [ -z "${K6_HTTP_DEBUG:-}" ] || [ "$K6_HTTP_DEBUG" = false ] || debug="K6_HTTP_DEBUG=$K6_HTTP_DEBUG"; }
  if [ -n "$debug" ] && [ "$allow" != 1 ] && [ "$allow" != true ]; then
    echo "$debug is not allowed: it prints credentials (Authorization headers, login bodies) to the terminal; set ALLOW_HTTP_DEBUG=1 to accept that"
  fi
}

# wp_cli_secret_line <name>: the refusal (its value is never shown).
wp_cli_secret_line() {
  printf '%s %s export %s=… in the environment (or keep it in .run/env) and run again without -e %s\n' "$1" "$WP_CLI_SECRET_WHY" "$1" "$1"
}

# RUN_SECRET proves that objects are a run's (lib/targets/lifecycle.js): the same value must
# reach every process that may claim them (REUSE of a kept object, the instances and the verify
# step of a distributed run). wp_run_secret exports it from .run/run-secret (32 random hex
# digits, made once, mode 600: other users of the machine cannot read it) unless it is set;
# where .run cannot be written it stays unset (each run then proves only its own objects).
wp_run_secret() {
  [ -n "${RUN_SECRET:-}" ] && return 0
  local dir f v why=
  dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.run
  f=$dir/run-secret
  # Only a regular file of this user, unreadable to others, holding 32 hex digits is the secret: a
  # link could point at a file others read (or write), a directory or an empty file is no secret.
  if [ -L "$f" ]; then why="is a symbolic link (to $(readlink "$f")): a link may lead to a file other users can read"
  elif [ -e "$f" ] && [ ! -f "$f" ]; then why="is not a regular file"
  elif [ -f "$f" ] && [ ! -O "$f" ]; then why="belongs to another user"
  elif [ -f "$f" ] && [ -n "$(find "$f" -maxdepth 0 -perm /077 2>/dev/null)" ]; then why="is readable or writable by other users (mode $(stat -c %a "$f" 2>/dev/null)): anyone who read it can claim this user's kept objects"
  elif [ -f "$f" ]; then
    v=$(head -c 4096 "$f" 2>/dev/null)
    [[ "$v" =~ ^[0-9a-f]{32}$ ]] || why="does not hold 32 hex digits (empty, blank or edited)"
  fi
  if [ -n "$why" ]; then
    # Never followed, never trusted: moved aside (kept for whoever wants to look) and made anew.
    echo "k6-writepath: .run/run-secret $why; it is moved to .run/run-secret.refused.$$ and a new secret is made (objects kept with REUSE under the old one must be claimed with RUN_SECRET=<old value>)" >&2
    mv -f "$f" "$dir/run-secret.refused.$$" 2>/dev/null || { echo "k6-writepath: .run/run-secret cannot be moved aside: this run goes on without a secret (it proves only its own objects); remove $f" >&2; return 0; }
  fi
  if [ ! -e "$f" ]; then
    # .run itself keeps the default mode (the postgres user of scripts/pg-private.sh must
    # traverse it); the secret is mode 600 by the umask.
    mkdir -p "$dir" 2>/dev/null
    ( umask 077; od -An -N16 -tx1 /dev/urandom | tr -d ' \n' > "$dir/run-secret.$$" &&
      mv -n "$dir/run-secret.$$" "$f"; rm -f "$dir/run-secret.$$" ) 2>/dev/null || return 0
  fi
  [ -f "$f" ] && [ ! -L "$f" ] || return 0
  v=$(head -c 4096 "$f" 2>/dev/null)
  [[ "$v" =~ ^[0-9a-f]{32}$ ]] && RUN_SECRET=$v && export RUN_SECRET
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
