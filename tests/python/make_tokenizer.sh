#!/usr/bin/env bash
# make_tokenizer.sh MORPHEUS PREPARE_DIR CONFIG OUT_DIR
# The tiny tokenizer the Python tests load (as cli/neural_round_trip.sh makes it): prepare the
# tiny corpus, train configs/tiny.json for 2 steps, export a 2000-id tokenizer to OUT_DIR with the
# default special tokens and the user symbol <sep>.
set -u
fail() { echo "FAIL: $*"; exit 1; }
[ $# = 4 ] || fail "usage: make_tokenizer.sh MORPHEUS PREPARE_DIR CONFIG OUT_DIR"
m=$1 prep=$2 config=$3 out=$4
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
"$m" prepare --corpus "$prep/corpus.txt" --teacher "$prep/teacher.tsv" --out "$work/data" \
  --set prepare.root_lexicon="$prep/roots.txt" --set prepare.suffix_lexicon="$prep/suffixes.txt" \
  --set prepare.word_min_count=1 --set prepare.root_min_count=1 > /dev/null || fail prepare
"$m" train --data "$work/data" --config "$config" --out "$work/run" --device cpu \
  --set train.max_steps=2 --set train.threads=1 > /dev/null || fail train
rm -rf "$out"
"$m" export --checkpoint "$work/run/final" --data "$work/data" --out "$out" --vocab-size 2000 \
  --min-count 1 --special-tokens "<pad>,<s>,</s>,<mask>" --user-symbols "<sep>" || fail export
[ -f "$out/morpheus.json" ] || fail "export wrote no $out/morpheus.json"
echo ok
