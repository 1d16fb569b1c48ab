#!/usr/bin/env bash
# lm_study.sh MORPHEUS PREPARE_DIR CONFIG
# Runs scripts/lm_study.sh end to end on a stand-in for the main job's artifacts: a 2-step tiny
# Morpheus model (the checkpoint the study exports at its vocabulary size and as the "50K"
# tokenizer), the first 600 lines of the npm corpus as the training text, a one-layer 16-wide GPT
# for 3 steps, 2 seeds. Checks: the reversible systems have two seeds of results, the hybrid
# reference mode fails the gate and is listed excluded, the report has its table and figure, and
# a second invocation reuses everything (no new run).
set -u
. "$(dirname "$0")/lib.sh"
fail() { echo "FAIL: $*"; exit 1; }
m=$1 prep=$2 config=$3
repo=$(cd "$(dirname "$0")/../.." && pwd)
shared=$(shared_data_dir)
require_file "$shared/corpus/dev_ud_sentences.txt" "$shared/hybrid/kokler.json" \
  "$repo/node_modules/nlptoolkit-corpus/corpus.txt"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
r=$dir/main
mkdir -p "$r/unsup/prepare" "$r/semi/threshold"
"$m" prepare --corpus "$prep/corpus.txt" --teacher "$prep/teacher.tsv" --out "$dir/data" \
  --set prepare.root_lexicon="$prep/roots.txt" --set prepare.suffix_lexicon="$prep/suffixes.txt" \
  --set prepare.word_min_count=1 --set prepare.root_min_count=1 > /dev/null || fail prepare
"$m" train --data "$dir/data" --config "$config" --out "$r/semi/train" --device cpu \
  --set train.max_steps=2 --set train.threads=1 > /dev/null || fail train
head -n 600 "$repo/node_modules/nlptoolkit-corpus/corpus.txt" > "$r/unsup/prepare/corpus.txt"
tr ' ' '\n' < "$r/unsup/prepare/corpus.txt" | grep -v '^$' | sort | uniq -c |
  awk '{ print $2 "\t" $1 }' > "$r/types.tsv"
cp "$prep/teacher.tsv" "$r/unsup/prepare/teacher.tsv"
echo "--threshold 0.5" > "$r/semi/threshold/export_args.txt"
"$m" export --checkpoint "$r/semi/train/final" --out "$r/tokenizer" --vocab-size 2000 \
  --words "$r/types.tsv" --text "$r/unsup/prepare/corpus.txt" > /dev/null || fail export
run_study() {
  (cd "$repo" && MORPHEUS="$m" MORPHEUS_SHARED_DATA="$shared" LM_OUT="$dir/lm" LM_SEEDS="1 2" \
    LM_VOCAB=1024 LM_SET="lm.layers=1 lm.heads=2 lm.d_model=16 lm.equalize_vocab=1024
    lm.context=16 lm.batch_size=2 lm.steps=3 lm.warmup_steps=1 lm.eval_every=2
    lm.checkpoint_every=2 lm.log_every=1 lm.threads=1" \
    bash scripts/lm_study.sh "$r") > "$dir/log$1" 2>&1 || { cat "$dir/log$1"; fail "study $1"; }
}
run_study 1
for s in morpheus-1k cbpe-1k spm-bpe-1k spm-unigram-1k morpheus-50k hybrid-lossless chars; do
  for seed in 1 2; do
    [ -f "$dir/lm/systems/$s/seed-$seed/result.json" ] || fail "no result for $s seed $seed"
  done
  grep -q "| $s |" "$dir/lm/report.md" || fail "no row for $s"
done
[ -f "$dir/lm/systems/chars/seed-1/generate-b32.json" ] || fail "no generation measurement"
grep -q '"reversible": false' "$dir/lm/systems/hybrid/gate.json" || fail "hybrid passed the gate"
grep -q "^- hybrid (.*): not reversible" "$dir/lm/report.md" || fail "hybrid not listed excluded"
[ -f "$dir/lm/bpc_vs_step.png" ] || fail "no figure"
run_study 2
grep -q "lm train:" "$dir/log2" && fail "the second invocation trained again"
echo ok
