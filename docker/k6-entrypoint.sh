#!/usr/bin/env bash
# Entry point of the k6 image (docker/k6.Dockerfile):
#   run [k6 options…] scenarios/<target>/<experiment>.js [k6 options…]
#       → scripts/run <scenario> <options…>: RUN_ID, results/<RUN_ID>/, testid tag, InfluxDB,
#         exactly as `scripts/run` on the host;
#   anything else (version, inspect, …) → plain k6.
set -euo pipefail
root=${WP_ROOT:-/k6-writepath}
k6=${K6:-k6}

if [ "${1:-}" != run ]; then
  exec "$k6" "$@"
fi
shift
# k6 takes the script as its positional argument anywhere among the options; scripts/run wants
# it first. The scenario is the last argument that names an existing .js file.
script=""
for ((i = $#; i >= 1; i--)); do
  a=${!i}
  if [[ "$a" == *.js ]] && [ -f "$a" ]; then script=$a; idx=$i; break; fi
done
if [ -z "$script" ]; then
  echo "k6-writepath: no scenario file among the arguments (e.g. run scenarios/postgres/insert-vs-overwrite.js)" >&2
  exit 2
fi
rest=("${@:1:idx-1}" "${@:idx+1}")
exec "$root/scripts/run" "$script" "${rest[@]}"
