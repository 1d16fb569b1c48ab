#!/usr/bin/env bash
# choose_threshold.sh MORPHEUS PREPARE_DIR CONFIG
# Trains a tiny model for 2 steps and runs scripts/choose_threshold.sh on it: the chosen export
# options (threshold, root snap) are the candidate with the best mean score in scores.tsv, every
# score comes from the tune part of the gold sets (the eval config says split=tune, the report
# says it showed the tune part), and the exports carry their threshold and root snap; export
# rejects a threshold outside (0, 1).
set -u
fail() { echo "FAIL: $*"; exit 1; }
m=$1 prep=$2 config=$3
repo=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
"$m" prepare --corpus "$prep/corpus.txt" --teacher "$prep/teacher.tsv" --out "$dir/data" \
  --set prepare.root_lexicon="$prep/roots.txt" --set prepare.suffix_lexicon="$prep/suffixes.txt" \
  --set prepare.word_min_count=1 --set prepare.root_min_count=1 > /dev/null || fail prepare
"$m" train --data "$dir/data" --config "$config" --out "$dir/run" --device cpu \
  --set train.max_steps=2 --set train.threads=1 > /dev/null || fail train
"$m" export --checkpoint "$dir/run/final" --data "$dir/data" --out "$dir/bad" --threshold 1.5 \
  2> "$dir/err" && fail "threshold 1.5 accepted"
grep -q "threshold must be in (0, 1)" "$dir/err" || { cat "$dir/err"; fail "no clear error"; }
(cd "$repo" && MORPHEUS="$m" bash scripts/choose_threshold.sh "$dir/run/final" \
  "$dir/data/words.tsv" "$prep/corpus.txt" "$dir/choose" 0.2 0.5 0.8) || fail choose_threshold
grep -q '"split": "tune"' "$dir/choose/eval_tune.json" || fail "not scored on the tune split"
grep -q "These tables show the tune part" "$dir/choose/eval/report.md" || fail "report part"
best=$(tail -n +2 "$dir/choose/scores.tsv" | sort -t$'\t' -k7,7gr -k1,1g -k2,2n | head -1)
want="--threshold $(echo "$best" | cut -f1)"
[ "$(echo "$best" | cut -f2)" = 1 ] && want="$want --root-snap"
[ "$(cat "$dir/choose/export_args.txt")" = "$want" ] ||
  fail "chose $(cat "$dir/choose/export_args.txt"), best $want"
[ "$(tail -n +2 "$dir/choose/scores.tsv" | wc -l)" = 6 ] || fail "six candidates scored"
for t in 0.2 0.5 0.8; do
  grep -q "\"threshold\": $t" "$dir/choose/tokenizer-$t/morpheus.json" || fail "export $t"
  grep -q '"root_snap": false' "$dir/choose/tokenizer-$t/morpheus.json" || fail "snap off $t"
  grep -q '"root_snap": true' "$dir/choose/tokenizer-$t-snap/morpheus.json" || fail "snap $t"
  [ -f "$dir/choose/tokenizer-$t-snap/root_snap/roots.txt" ] || fail "no lexicon in $t-snap"
done
echo "chose $want"
