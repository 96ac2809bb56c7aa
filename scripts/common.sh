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

# Exports each .run/env value whose variable is not set (or empty): the environment wins.
wp_run_env() {
  local line k
  while IFS= read -r line; do
    k=${line%%=*}
    [ -n "${!k:-}" ] || export "$line"
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

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  case "${1:-}" in
    --print-env) wp_env_lines "${2:-}" ;;
    --new-run-id) wp_new_run_id ;;
    *) echo "usage: scripts/common.sh --print-env [file] | --new-run-id (or source it)" >&2; exit 2 ;;
  esac
fi
