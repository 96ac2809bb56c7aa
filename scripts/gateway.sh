# The private gateway of one run (bin/wp-gateway, docs/gateway.md), for the scripts that start
# k6 on a PostgreSQL or MongoDB scenario: sourced, not run.
#   wp_gateway_needed <scenario.js>   true when the scenario writes through the gateway
#   wp_gateway_start <dir> <scenario>  starts it on a free loopback port with PG_URL/MONGO_URL from
#                                     the environment and a token of its own; exports
#                                     GATEWAY_URL and WP_GATEWAY_TOKEN for k6 and unsets the
#                                     database URLs (k6 never carries them); 107 on a bad URL
#   wp_gateway_stop                   stops exactly that pid
wp_gateway_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WP_GATEWAY_PID=

# The rule of scripts/lib/gateway.mjs needsGateway (the targets declared gateway: true) for the
# k6 image, which has no Node; test/unit/gateway-rule.test.mjs holds the two together.
wp_gateway_needed() {
  grep -qE 'lib/targets/(postgres|mongodb)/\1\.js' "$1" 2>/dev/null
}

wp_gateway_start() {
  local dir=$1 bin=${WP_GATEWAY_BIN:-$wp_gateway_root/bin/wp-gateway} i
  [ -x "$bin" ] || { echo "k6-writepath: $bin is missing: make gateway builds it (Go; docs/gateway.md)" >&2; return 107; }
  # (the k6 image has no Node: there the gateway itself refuses a URL its driver rejects)
  if command -v node >/dev/null; then node "$wp_gateway_root/scripts/gateway-check.mjs" "${2:-}" || return $?; fi
  mkdir -p "$dir"
  rm -f "$dir/gateway.url"
  local token; token=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
  # In a session of its own: a Ctrl-C or `timeout` signalling the caller's whole process group
  # must not take the gateway away while k6 still runs its teardown through it; it stops once
  # this shell is gone (-exit-with-parent), even after a SIGKILL.
  WP_GATEWAY_TOKEN=$token "${WP_DETACH[@]}" "$bin" -addr 127.0.0.1:0 -ready-file "$dir/gateway.url" -exit-with-parent >"$dir/gateway.log" 2>&1 &
  WP_GATEWAY_PID=$!
  for ((i = 0; i < 200; i++)); do
    [ -s "$dir/gateway.url" ] && break
    kill -0 "$WP_GATEWAY_PID" 2>/dev/null || break
    sleep 0.05
  done
  if [ ! -s "$dir/gateway.url" ]; then
    local code=0
    kill -0 "$WP_GATEWAY_PID" 2>/dev/null || { wait "$WP_GATEWAY_PID"; code=$?; }
    # 107: the gateway refused its configuration in one line (a URL its driver cannot take)
    if [ "$code" = 107 ]; then tail -n 1 "$dir/gateway.log" >&2; WP_GATEWAY_PID=; return 107; fi
    echo "k6-writepath: the private gateway did not start: $(tail -n 1 "$dir/gateway.log" 2>/dev/null)" >&2
    wp_gateway_stop
    return 108
  fi
  GATEWAY_URL=$(cat "$dir/gateway.url")
  WP_GATEWAY_TOKEN=$token
  export GATEWAY_URL WP_GATEWAY_TOKEN
  unset PG_URL MONGO_URL
}

wp_gateway_stop() {
  [ -n "$WP_GATEWAY_PID" ] || return 0
  kill -TERM "$WP_GATEWAY_PID" 2>/dev/null || true
  wait "$WP_GATEWAY_PID" 2>/dev/null || true
  WP_GATEWAY_PID=
}
