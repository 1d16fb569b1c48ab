#!/usr/bin/env bash
# round_trip.sh cbpe|spm-bpe|spm-unigram TOOL CORPUS VOCAB CHECK_FILE...
# Trains a small model on CORPUS with TOOL (morpheus or morpheus-spm), then checks that
# decode(encode(f)) == f byte for byte for every CHECK_FILE, and that segment prints word<TAB>pieces.
# A missing CORPUS or CHECK_FILE skips the test (exit 77), or fails it when CI=true (lib.sh).
set -u
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"
kind=$1 tool=$2 corpus=$3 vocab=$4; shift 4
require_file "$corpus" "$@"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
case "$kind" in
  cbpe) run() { "$tool" cbpe "$@"; }; run train --corpus "$corpus" --vocab-size "$vocab" --out "$dir/m" || exit 1 ;;
  spm-bpe|spm-unigram)
    run() { "$tool" "$@"; }
    run train --corpus "$corpus" --type "${kind#spm-}" --vocab-size "$vocab" --out "$dir/m" || exit 1 ;;
  *) echo "bad kind $kind"; exit 2 ;;
esac
for f in "$@"; do
  run encode --model "$dir/m" "$f" > "$dir/ids" || exit 1
  run decode --model "$dir/m" "$dir/ids" > "$dir/back" || exit 1
  if ! cmp "$f" "$dir/back"; then echo "round trip differs for $f"; exit 1; fi
  [ "$(wc -l < "$dir/ids")" = "$(wc -l < "$f")" ] || { echo "line count differs"; exit 1; }
done
printf 'Kitaplarımızdan\n' | run segment --model "$dir/m" - > "$dir/seg" || exit 1
grep -q "^Kitaplarımızdan	" "$dir/seg" || { echo "bad segment output"; cat "$dir/seg"; exit 1; }
echo "ok"
