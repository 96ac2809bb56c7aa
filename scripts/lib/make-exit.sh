#!/usr/bin/env bash
# scripts/lib/make-exit.sh <make target> <command…>: runs the command of a make recipe that
# runs a scenario and, when it fails, says its own exit code and what it means in one line on
# stderr. GNU make exits 2 whatever a recipe's code was; scripts/run (or the tool itself, run
# directly) gives the code itself (README "Exit codes").
set -uo pipefail
target=$1; shift
"$@"
code=$?
[ "$code" -eq 0 ] && exit 0
case "$code" in
  99) what='a limit or the verification failed' ;;
  107) what='bad input: refused before anything was written' ;;
  105) what='interrupted (Ctrl-C, SIGTERM): the summary still says what ran' ;;
  108) what='aborted: the database unreachable, credentials refused, or the run'"'"'s objects dropped under it' ;;
  *) if [ "$code" -gt 128 ]; then what="stopped by signal $((code - 128))"; else what='failed (the lines above say why)'; fi ;;
esac
echo "make $target: exit code $code: $what (make itself exits 2; run the command without make for the code itself)" >&2
exit "$code"
