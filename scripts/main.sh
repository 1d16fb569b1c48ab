#!/usr/bin/env bash
# README command (1): install, build, and run the main job on the embedded default:
#   prepare (npm corpus + Penn sentences, Morfessor teacher) → train (configs/tiny.json) →
#   export → segment → embed → eval (every system, report.md + report.json + figures).
# Idempotent: finished stages are reused (prepare stamps, train --resume, eval setup_creates).
# Artifacts go under runs/main/.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
stage() { echo; echo "== [$(( $(date +%s) - start ))s] $*"; }

stage "setup"
bash scripts/setup.sh
stage "build (dev preset: the two binaries)"
bash scripts/build.sh dev morpheus morpheus-spm
M=build/dev/tools/morpheus
mkdir -p runs/main

stage "prepare → runs/main/prepare"
$M prepare --out runs/main/prepare --gold ../shared/data/gold/mc2010_tur_trainset.tsv >/dev/null

stage "train configs/tiny.json → runs/main/train"
if [ -f runs/main/train/final/meta.json ]; then
  echo "already trained: runs/main/train/final"
elif [ -f runs/main/train/checkpoints/latest ]; then
  $M train --data runs/main/prepare --config configs/tiny.json --out runs/main/train --resume
else
  $M train --data runs/main/prepare --config configs/tiny.json --out runs/main/train
fi

if $M --help | grep -q '^  export'; then
  stage "export → runs/main/tokenizer"
  # Every corpus word type (not only the training vocabulary) goes into the segmentation table.
  sed -E 's/^([0-9]+) (.*)$/\2\t\1/' runs/main/prepare/morfessor_counts.txt > runs/main/types.tsv
  [ -d runs/main/tokenizer ] || $M export --checkpoint runs/main/train/final \
      --out runs/main/tokenizer --vocab-size 50000 --words runs/main/types.tsv
  stage "segment + embed the dev words"
  tr ' ' '\n' < ../shared/data/corpus/dev_ud_sentences.txt | grep -v '^$' | sort -u | head -20000 \
    > runs/main/dev_words.txt || true
  $M segment --model runs/main/tokenizer runs/main/dev_words.txt -o runs/main/dev_words.seg.tsv
  $M embed --model runs/main/tokenizer --words runs/main/dev_words.txt --out runs/main/dev_words.vec
else
  stage "export/segment/embed: not built yet (open issue); skipped"
fi

stage "eval → runs/main/eval"
$M eval --config configs/eval.json --out runs/main/eval

stage "done in $(( $(date +%s) - start ))s"
echo "prepare:   runs/main/prepare (prepare.json)"
echo "training:  runs/main/train (metrics.jsonl, final/)"
echo "report:    runs/main/eval/report.md"
echo
cat runs/main/eval/report.md
