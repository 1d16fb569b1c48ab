#!/usr/bin/env bash
# expect_exit.sh CODE [--stdin FILE] [--stderr-has TEXT] [--stdout-has TEXT] -- COMMAND...
# Runs COMMAND and fails unless it exits with CODE and its output contains the given texts.
set -u
want=$1; shift
stdin=/dev/null; err_has=""; out_has=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  case "$1" in
    --stdin) stdin=$2; shift 2 ;;
    --stderr-has) err_has=$2; shift 2 ;;
    --stdout-has) out_has=$2; shift 2 ;;
    *) echo "expect_exit.sh: bad option $1" >&2; exit 2 ;;
  esac
done
shift
out=$(mktemp); err=$(mktemp)
"$@" <"$stdin" >"$out" 2>"$err"
got=$?
status=0
if [ "$got" != "$want" ]; then echo "exit code $got, expected $want: $*"; status=1; fi
if [ -n "$err_has" ] && ! grep -qF -- "$err_has" "$err"; then echo "stderr lacks '$err_has'"; status=1; fi
if [ -n "$out_has" ] && ! grep -qF -- "$out_has" "$out"; then echo "stdout lacks '$out_has'"; status=1; fi
if [ $status != 0 ]; then echo "--- stdout"; head -c 2000 "$out"; echo "--- stderr"; head -c 2000 "$err"; fi
rm -f "$out" "$err"
exit $status
