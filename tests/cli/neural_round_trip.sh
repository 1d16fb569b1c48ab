#!/usr/bin/env bash
# neural_round_trip.sh MORPHEUS PREPARE_DIR CONFIG CHECK_FILE...
# Prepares the tiny corpus, trains a tiny model for 2 steps, exports a tokenizer and checks:
# decode(encode(f)) == f byte for byte for every CHECK_FILE, segment and segment --text formats,
# embed .npy (header) + .vocab and .vec, neighbors -k and --index; without model/ the exported
# words still encode (segment table) and decode works, a new word fails clearly; a format-1
# directory asks for a re-export. A missing CHECK_FILE (e.g. from the shared data) skips the test
# (exit 77), or fails it when CI=true (lib.sh); a missing file of the repo or a missing output of
# a step fails it.
set -u
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"
fail() { echo "FAIL: $*"; exit 1; }
[ $# -gt 3 ] || fail "usage: neural_round_trip.sh MORPHEUS PREPARE_DIR CONFIG CHECK_FILE..."
m=$1 prep=$2 config=$3; shift 3
for f in "$m" "$prep/corpus.txt" "$prep/teacher.tsv" "$prep/roots.txt" "$prep/suffixes.txt" \
  "$config"; do
  [ -f "$f" ] || fail "missing $f"
done
require_file "$@"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
"$m" prepare --corpus "$prep/corpus.txt" --teacher "$prep/teacher.tsv" --out "$dir/data" \
  --set prepare.root_lexicon="$prep/roots.txt" --set prepare.suffix_lexicon="$prep/suffixes.txt" \
  --set prepare.word_min_count=1 --set prepare.root_min_count=1 \
  > /dev/null || fail prepare
"$m" train --data "$dir/data" --config "$config" --out "$dir/run" --device cpu \
  --set train.max_steps=2 --set train.threads=1 > /dev/null || fail train
"$m" export --checkpoint "$dir/run/final" --data "$dir/data" --out "$dir/tok" --vocab-size 2000 \
  --min-count 1 || fail export
[ -f "$dir/tok/morpheus.json" ] || fail "export wrote no $dir/tok/morpheus.json"
for f in "$@"; do
  "$m" encode --model "$dir/tok" "$f" > "$dir/ids" || fail "encode $f"
  "$m" decode --model "$dir/tok" "$dir/ids" > "$dir/back" || fail "decode $f"
  cmp "$f" "$dir/back" || fail "round trip differs for $f"
  [ "$(wc -l < "$dir/ids")" = "$(wc -l < "$f")" ] || fail "line count differs for $f"
done
# Sharded encode: the shards together hold every line once.
f=$1
"$m" encode --model "$dir/tok" --workers 3 --block-lines 7 "$f" > "$dir/w3" || fail "encode --workers"
"$m" encode --model "$dir/tok" "$f" | cmp - "$dir/w3" || fail "--workers 3 changes the ids"

"$m" encode --model "$dir/tok" --shard 0/2 "$f" > "$dir/s0" || fail "shard 0"
"$m" encode --model "$dir/tok" --shard 1/2 "$f" > "$dir/s1" || fail "shard 1"
[ $(( $(wc -l < "$dir/s0") + $(wc -l < "$dir/s1") )) = "$(wc -l < "$f")" ] || fail "shards"
printf 'Kitaplarımızdan\n' | "$m" segment --model "$dir/tok" - > "$dir/seg" || fail segment
grep -q "^Kitaplarımızdan	" "$dir/seg" || { cat "$dir/seg"; fail "bad segment output"; }
printf 'Kitaplarımızdan\nev\n' > "$dir/bwords"
"$m" boundaries --model "$dir/tok" "$dir/bwords" -o "$dir/bnd" || fail boundaries
# One probability per gap of the lower-cased word (15 letters: 14 gaps; "ev": 1).
awk -F'\t' '$1 == "kitaplarımızdan" { ok = split($2, p, " ") == 14 } END { exit !ok }' "$dir/bnd" ||
  { cat "$dir/bnd"; fail "bad boundaries output"; }
awk -F'\t' '$1 == "ev" { ok = $2 ~ /^[01]\.[0-9][0-9][0-9][0-9]$/ } END { exit !ok }' "$dir/bnd" ||
  { cat "$dir/bnd"; fail "bad boundaries output for ev"; }
printf 'Ev  "a b"\n' | "$m" segment --text --model "$dir/tok" - > "$dir/segt" || fail "segment --text"
grep -q '^\["Ev","  ","\\"",' "$dir/segt" || { cat "$dir/segt"; fail "bad segment --text output"; }
# Running text is segmented as its words are (the apostrophe rule needs the whole word).
printf "Kitap'tan evlerde\n" | "$m" segment --text --model "$dir/tok" - > "$dir/segt2" ||
  fail "segment --text apostrophe"
printf "Kitap'tan\nevlerde\n" | "$m" segment --model "$dir/tok" - |
  awk -F'\t' '{ n = split($2, p, " "); for (i = 1; i <= n; i++) printf "%s\"%s\"", s++ ? "," : "[", p[i];
    if (NR == 1) printf ",\" \"" } END { print "]" }' > "$dir/segw2"
cmp -s "$dir/segt2" "$dir/segw2" || { cat "$dir/segt2" "$dir/segw2"; fail "segment --text differs from segment"; }
printf 'evler\nkitap\nİstanbul\n' > "$dir/words"
"$m" embed --model "$dir/tok" --words "$dir/words" --out "$dir/e.npy" || fail "embed npy"
[ "$(head -c 6 "$dir/e.npy" | tail -c 5)" = "NUMPY" ] || fail "npy magic"
head -c 128 "$dir/e.npy" | grep -aq "'shape': (3, " || fail "npy shape"
[ "$(wc -l < "$dir/e.vocab")" = 3 ] || fail "vocab lines"
"$m" embed --model "$dir/tok" --words "$dir/words" --out "$dir/e.vec" || fail "embed vec"
"$m" embed --model "$dir/tok" --words "$dir/words" --out "$dir/e_auto.npy" --device auto ||
  fail "embed --device auto"
cmp -s "$dir/e.npy" "$dir/e_auto.npy" || fail "embed --device auto differs from cpu on a CPU machine"
head -1 "$dir/e.vec" | grep -q '^3 [0-9]*$' || fail "vec header"
# --device of export and of the model behind encode/segment: auto is the CPU on a machine without
# CUDA (the same table, the same ids); cuda works where LibTorch sees a GPU, else a clear error.
"$m" export --checkpoint "$dir/run/final" --data "$dir/data" --out "$dir/tok_auto" \
  --vocab-size 2000 --min-count 1 --device auto 2> /dev/null || fail "export --device auto"
if "$m" device --device cuda > /dev/null 2>&1; then has_cuda=1; else has_cuda=0; fi
if [ $has_cuda = 0 ]; then
  cmp -s "$dir/tok/segments.bin" "$dir/tok_auto/segments.bin" ||
    fail "export --device auto differs from cpu on a CPU machine"
fi
printf 'Zqxwvzqxw kitaplarımızdan\n' > "$dir/new"
"$m" encode --model "$dir/tok" --device cpu "$dir/new" > "$dir/new_cpu" || fail "encode --device cpu"
"$m" encode --model "$dir/tok" --device auto "$dir/new" > "$dir/new_auto" ||
  fail "encode --device auto"
[ $has_cuda = 1 ] || cmp -s "$dir/new_cpu" "$dir/new_auto" ||
  fail "encode --device auto differs from cpu on a CPU machine"
if [ $has_cuda = 0 ]; then
  "$m" encode --model "$dir/tok" --device cuda "$dir/new" > /dev/null 2> "$dir/err" &&
    fail "encode --device cuda accepted without CUDA"
  grep -q "CUDA is not available" "$dir/err" || { cat "$dir/err"; fail "no CUDA message"; }
  "$m" export --checkpoint "$dir/run/final" --data "$dir/data" --out "$dir/tok_cuda" \
    --device cuda > /dev/null 2> "$dir/err" && fail "export --device cuda accepted without CUDA"
  grep -q "CUDA is not available" "$dir/err" || { cat "$dir/err"; fail "no CUDA message (export)"; }
else
  printf 'zqxwvzqxw\n' | "$m" segment --model "$dir/tok" --device cuda - > /dev/null ||
    fail "segment --device cuda"
fi
"$m" neighbors --model "$dir/tok" --query evler -k 2 > "$dir/nb" || fail neighbors
[ "$(wc -l < "$dir/nb")" = 2 ] || { cat "$dir/nb"; fail "neighbors count"; }
# neighbors --index: the vectors of `embed` are the candidates (nothing re-embedded); the same
# ranking as embedding those words with the model; no model needed for a query in the index.
"$m" neighbors --model "$dir/tok" --vocab "$dir/words" --query evler -k 2 | cut -f1 > "$dir/nb1" \
  || fail "neighbors --vocab"
for ext in npy vec; do
  "$m" neighbors --index "$dir/e.$ext" --query evler -k 2 | cut -f1 > "$dir/nb2" \
    || fail "neighbors --index e.$ext"
  cmp "$dir/nb1" "$dir/nb2" || { cat "$dir/nb1" "$dir/nb2"; fail "--index e.$ext ranking"; }
done
"$m" neighbors --index "$dir/e.npy" --model "$dir/tok" --query kitaplar -k 3 > "$dir/nb3" \
  || fail "neighbors --index with a query outside the index"
[ "$(wc -l < "$dir/nb3")" = 3 ] || { cat "$dir/nb3"; fail "neighbors --index count"; }
"$m" neighbors --index "$dir/e.npy" --query kitaplar > /dev/null 2> "$dir/err" \
  && fail "query outside the index accepted without --model"
grep -q -- "--model" "$dir/err" || { cat "$dir/err"; fail "no --model hint"; }
"$m" neighbors --index "$dir/e.npy" --vocab "$dir/words" --query evler > /dev/null 2> "$dir/err" \
  && fail "--index with --vocab accepted"
# The table serves the exported words without the model (neither the engine's model.weights nor
# the LibTorch checkpoint model/); decode never needs it.
cp -r "$dir/tok" "$dir/nomodel" && rm -r "$dir/nomodel/model" "$dir/nomodel/model.weights"
"$m" encode --model "$dir/nomodel" "$prep/corpus.txt" > "$dir/ids2" || fail "encode without model"
"$m" decode --model "$dir/nomodel" "$dir/ids2" > "$dir/back2" || fail "decode without model"
cmp "$prep/corpus.txt" "$dir/back2" || fail "round trip without model"
printf 'zqxwvzqxw\n' | "$m" encode --model "$dir/nomodel" - > /dev/null 2> "$dir/err" \
  && fail "a word outside the table needs the model"
grep -q "model.weights" "$dir/err" || { cat "$dir/err"; fail "missing model message"; }
sed -i 's/"format_version": 4/"format_version": 1/' "$dir/nomodel/morpheus.json"
"$m" decode --model "$dir/nomodel" "$dir/ids2" > /dev/null 2> "$dir/err" && fail "format 1 accepted"
grep -q "morpheus export" "$dir/err" || { cat "$dir/err"; fail "no re-export hint"; }
echo ok
