#!/usr/bin/env bash
# README command (1): install, build, and run the main job on the embedded default:
#   prepare (npm corpus + Penn sentences → runs/main/prepare/corpus.txt, the one training text;
#   Morfessor teacher scored on the MC2010 tune part) → train (configs/tiny.json) → export →
#   segment → embed → eval (every system on the report part of every gold set: report.md,
#   report.json, figures).
# Idempotent: finished stages are reused (prepare stamps, train --resume, an export whose
# checkpoint is unchanged, baselines trained on an unchanged training text).
# Artifacts go under runs/main/.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
stage() { echo; echo "== [$(( $(date +%s) - start ))s] $*"; }
SHARED=${MORPHEUS_SHARED_DATA:-../shared/data}

stage "setup"
bash scripts/setup.sh
stage "build (dev preset: the two binaries)"
bash scripts/build.sh dev morpheus morpheus-spm
M=build/dev/tools/morpheus
mkdir -p runs/main

stage "prepare → runs/main/prepare (teacher scored on the MC2010 tune part)"
$M gold-split --gold mc2010 --part tune "$SHARED/gold/mc2010_tur_trainset.tsv" \
  -o runs/main/mc2010_tune.tsv
$M prepare --out runs/main/prepare --gold runs/main/mc2010_tune.tsv >/dev/null
# Baselines trained on an earlier training text are stale: drop them.
text_sum=$(python3 -c 'import json; print(json.load(open("runs/main/prepare/prepare.json"))["corpus"]["text_checksum"])')
if [ "$(cat runs/main/baselines/training_text.checksum 2>/dev/null)" != "$text_sum" ]; then
  rm -rf runs/main/baselines
  mkdir -p runs/main/baselines
  echo "$text_sum" > runs/main/baselines/training_text.checksum
fi

stage "train configs/tiny.json → runs/main/train"
if [ -f runs/main/train/final/meta.json ]; then
  echo "already trained: runs/main/train/final"
elif [ -f runs/main/train/checkpoints/latest ]; then
  $M train --data runs/main/prepare --config configs/tiny.json --out runs/main/train --resume
else
  $M train --data runs/main/prepare --config configs/tiny.json --out runs/main/train
fi

stage "export → runs/main/tokenizer (segmentation table = the training text's word types)"
sed -E 's/^([0-9]+) (.*)$/\2\t\1/' runs/main/prepare/morfessor_counts.txt > runs/main/types.tsv
bash scripts/export_tokenizer.sh runs/main/train/final runs/main/tokenizer \
  --vocab-size 50000 --words runs/main/types.tsv

stage "segment + embed the dev words"
tr ' ' '\n' < "$SHARED/corpus/dev_ud_sentences.txt" | grep -v '^$' | sort -u | awk 'NR <= 20000' \
  > runs/main/dev_words.txt
$M segment --model runs/main/tokenizer runs/main/dev_words.txt -o runs/main/dev_words.seg.tsv
$M embed --model runs/main/tokenizer --words runs/main/dev_words.txt --out runs/main/dev_words.vec

stage "eval → runs/main/eval"
$M eval --config configs/eval.json --out runs/main/eval

stage "done in $(( $(date +%s) - start ))s"
echo "prepare:   runs/main/prepare (prepare.json, corpus.txt = the training text of every system)"
echo "training:  runs/main/train (metrics.jsonl, final/)"
echo "report:    runs/main/eval/report.md"
echo
cat runs/main/eval/report.md
