#!/usr/bin/env bash
# Writes the passwords docker-compose.yml requires to an env file (default: .env in the repo,
# which `docker compose` reads by itself), generating a random one for each that is missing,
# and the k6 runs' RUN_SECRET (the key of their ownership proofs, docs/reliability.md).
# Existing values are never changed: the databases keep the password of their first start.
#   scripts/compose-env.sh [file]
# The values are hex, so they are safe inside PG_URL and MONGO_URL without URL encoding.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
file=${1:-$root/.env}
umask 077
touch "$file"
added=()
for name in ARANGO_ROOT_PASSWORD POSTGRES_PASSWORD MONGO_ROOT_PASSWORD GRAFANA_ADMIN_PASSWORD RUN_SECRET; do
  grep -q "^$name=" "$file" && continue
  [ -s "$file" ] && [ -n "$(tail -c 1 "$file")" ] && echo >> "$file"
  echo "$name=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')" >> "$file"
  added+=("$name")
done
chmod 600 "$file"
if [ ${#added[@]} -gt 0 ]; then
  echo "compose-env: wrote ${added[*]} to $file" >&2
else
  echo "compose-env: $file already has every password" >&2
fi
