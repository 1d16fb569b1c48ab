#!/usr/bin/env bash
# README command (1): install, build, and run the main job on the embedded default. Two Morpheus
# models are trained on the one training text (runs/main/*/prepare/corpus.txt: npm corpus + Penn
# sentences), each with configs/tiny.json (its prepare section too: the contrastive loss's roots are
# dictionary forms):
#   unsup  the mission setting: teacher = Morfessor on the corpus + root correction, boundary
#          threshold and root snap chosen on the tune part of the gold sets;
#   semi   the shipped setting: Morfessor semi-supervised with 500 annotated words of the MC2010
#          tune part (the only annotated words any training here may use) + root correction,
#          boundary threshold and root snap chosen on the tune part of the gold sets.
# Then the baselines (CBPE, SentencePiece, fastText) on the same training text → export of every
# Morpheus tokenizer the eval scores → segment → embed → eval (every system on the report part of
# every gold set: runs/main/eval/report.md, report.json, figures). This script makes every
# artifact; `morpheus eval` only runs the systems' segment/encode/decode/embed commands on them
# (configs/eval.json names each system's artifact under {run_dir} = runs/main).
# Idempotent: finished stages are reused (prepare stamps, train --resume, an export whose
# checkpoint and options are unchanged, baselines trained on an unchanged training text).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
stage() { echo; echo "== [$(( $(date +%s) - start ))s] $*"; }
SHARED=${MORPHEUS_SHARED_DATA:-../shared/data}
R=runs/main

stage "setup"
bash scripts/setup.sh
stage "build (dev preset: the two binaries)"
bash scripts/build.sh dev morpheus morpheus-torch morpheus-spm
M=build/dev/tools/morpheus
mkdir -p $R

# The MC2010 tune part: scores the teachers; its first 500 words annotate the semi teacher.
$M gold-split --gold mc2010 --part tune "$SHARED/gold/mc2010_tur_trainset.tsv" -o $R/mc2010_tune.tsv
head -n 501 $R/mc2010_tune.tsv > $R/mc2010_annotations.tsv

# prepare → train → export of one variant: variant NAME [prepare options…]
variant() {
  local name=$1
  shift
  local dir=$R/$name
  stage "$name: prepare → $dir/prepare"
  $M prepare --out $dir/prepare --config configs/tiny.json --gold $R/mc2010_tune.tsv "$@" >/dev/null
  stage "$name: train configs/tiny.json → $dir/train"
  # A training run belongs to its inputs (the prepare stamp and the config): other inputs, start over.
  local inputs
  inputs="$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["all"])' \
    $dir/prepare/stamps.json) $(cksum < configs/tiny.json)"
  if [ -d $dir/train ] && [ "$(cat $dir/train/inputs.txt 2>/dev/null)" != "$inputs" ]; then
    echo "training inputs changed: starting $dir/train over"
    rm -rf $dir/train
  fi
  mkdir -p $dir/train
  echo "$inputs" > $dir/train/inputs.txt
  if [ -f $dir/train/final/meta.json ]; then
    echo "already trained: $dir/train/final"
  elif [ -f $dir/train/checkpoints/latest ]; then
    $M train --data $dir/prepare --config configs/tiny.json --out $dir/train --resume
  else
    $M train --data $dir/prepare --config configs/tiny.json --out $dir/train
  fi
}
variant unsup
variant semi --annotations $R/mc2010_annotations.tsv

# The segmentation table holds the training text's word types (the same for both variants); the
# warm-table comparison's table adds the evaluation text's words.
sed -E 's/^([0-9]+) (.*)$/\2\t\1/' $R/unsup/prepare/morfessor_counts.txt > $R/types.tsv
(cat $R/types.tsv && tr -s ' ' '\n' < "$SHARED/corpus/dev_ud_sentences.txt" | grep -v '^$' |
  sort -u | sed 's/$/\t1/') > $R/types_and_eval_text.tsv
# Baselines trained on an earlier training text are stale: drop them.
text_sum=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["corpus"]["text_checksum"])' \
  $R/unsup/prepare/prepare.json)
if [ "$(cat $R/baselines/training_text.checksum 2>/dev/null)" != "$text_sum" ]; then
  rm -rf $R/baselines
  mkdir -p $R/baselines
  echo "$text_sum" > $R/baselines/training_text.checksum
fi

stage "baselines on the training text: CBPE (teacher boundaries), SentencePiece BPE and unigram, fastText"
# The raw Morfessor baseline is the unsup teacher's model ($R/unsup/prepare/morfessor_model.bin).
text=$R/unsup/prepare/corpus.txt
[ -f $R/baselines/cbpe-32k/cbpe.json ] ||
  $M cbpe train --corpus $text --boundaries $R/unsup/prepare/teacher.tsv --vocab-size 32000 \
    --out $R/baselines/cbpe-32k
for type in bpe unigram; do
  [ -f $R/baselines/spm-$type-32k/spm.json ] ||
    build/dev/tools/morpheus-spm train --corpus $text --type $type --vocab-size 32000 \
      --out $R/baselines/spm-$type-32k
done
[ -f $R/baselines/fasttext.bin ] ||
  fasttext skipgram -input $text -output $R/baselines/fasttext -dim 100 -epoch 5 -thread 2 -verbose 0

stage "export: unsup and semi, each with the threshold and root snap chosen on the tune part"
for v in unsup semi; do
  bash scripts/choose_threshold.sh $R/$v/train/final $R/types.tsv $text $R/$v/threshold
done
bash scripts/export_tokenizer.sh $R/unsup/train/final $R/unsup/tokenizer \
  --vocab-size 50000 --words $R/types.tsv --text $text $(cat $R/unsup/threshold/export_args.txt)
bash scripts/export_tokenizer.sh $R/semi/train/final $R/tokenizer \
  --vocab-size 50000 --words $R/types.tsv --text $text $(cat $R/semi/threshold/export_args.txt)
# The same semi model with the evaluation text's words in its table (the speed table's warm row).
bash scripts/export_tokenizer.sh $R/semi/train/final $R/tokenizer-warm \
  --vocab-size 50000 --words $R/types_and_eval_text.tsv --text $text \
  $(cat $R/semi/threshold/export_args.txt)

stage "segment + embed the dev words (shipped tokenizer: $R/tokenizer)"
tr ' ' '\n' < "$SHARED/corpus/dev_ud_sentences.txt" | grep -v '^$' | sort -u | awk 'NR <= 20000' \
  > $R/dev_words.txt
$M segment --model $R/tokenizer $R/dev_words.txt -o $R/dev_words.seg.tsv
$M embed --model $R/tokenizer --words $R/dev_words.txt --out $R/dev_words.vec

stage "eval → $R/eval"
$M eval --config configs/eval.json --run-dir $R --out $R/eval

stage "done in $(( $(date +%s) - start ))s"
echo "training text: $text ($text_sum), the same for every system"
echo "training:      $R/{unsup,semi}/train (metrics.jsonl, final/)"
echo "tokenizer:     $R/tokenizer (semi, $(cat $R/semi/threshold/export_args.txt))"
echo "report:        $R/eval/report.md"
echo
cat $R/eval/report.md
