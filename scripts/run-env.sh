# Sourced by scripts/run and scripts/run-distributed (with $root set): exports the local
# services' URLs from .run/env (written by `make up`) unless the environment already has them.
if [ -f "$root/.run/env" ]; then
  while IFS='=' read -r k v; do
    [[ "$k" =~ ^[A-Z_]+$ ]] || continue
    [ -n "${!k:-}" ] || export "$k=$v"
  done < "$root/.run/env"
fi
