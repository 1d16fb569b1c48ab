#!/usr/bin/env bash
# The student study's objective ablation, on the TUNE part of the gold sets only: the semi
# student (configs/tiny.json on runs/main/semi/prepare) retrained with one auxiliary objective's
# weight set to 0 (skip-gram, root-contrastive, character MLM), for each seed; every model is
# exported with the shipped export options (RUN_DIR/semi/threshold/export_args.txt: the threshold
# chosen on tune and the root snap) and scored by boundary type against the full model of the
# same seed (studies/objective_ablation_summary.py). The full model of the main job's seed (its
# train/config.json) is the main job's checkpoint; every other model is trained here.
# Writes OUT/train/<variant>-s<seed>, OUT/tokenizer/…, OUT/seg/…, OUT/summary.md.
# Usage: studies/objective_ablation.sh [RUN_DIR] [OUT] [SEED…]
#   (defaults: runs/main, runs/ablation, seeds 1337 2)
# Needs the tune words of studies/student_diagnosis.sh (runs/study/words.txt, runs/study/gold);
# MORPHEUS: the front (default build/dev/tools/morpheus). Each training is one tiny epoch
# (8-19 min on 2 cores; a training keeps about one core busy, so two runners in parallel,
# each with its own seeds or VARIANTS, finish sooner); finished stages are reused.
set -euo pipefail
cd "$(dirname "$0")/.."
run=${1:-runs/main} out=${2:-runs/ablation}
shift $(( $# < 2 ? $# : 2 ))
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || seeds=(1337 2)
M=${MORPHEUS:-build/dev/tools/morpheus}
study=${STUDY:-runs/study}
for f in "$M" "$run/semi/prepare/prepare.json" "$run/semi/train/final/meta.json" \
    "$run/semi/train/config.json" "$run/semi/threshold/export_args.txt" "$run/types.tsv" \
    "$study/words.txt" "$study/gold"; do
  [ -e "$f" ] || { echo "missing $f (run scripts/main.sh, then studies/student_diagnosis.sh)" >&2
    exit 1; }
done
declare -A weight=([full]="" [no-sgns]="model.sgns_weight=0" [no-ctr]="model.ctr_weight=0"
  [no-mlm]="model.mlm_weight=0")
# VARIANTS: a subset, e.g. for two runners in parallel (its summary compares to the first listed).
read -r -a variants <<< "${VARIANTS:-full no-sgns no-ctr no-mlm}"
text=$run/semi/prepare/corpus.txt
read -r -a export_args < "$run/semi/threshold/export_args.txt"
main_seed=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["train"]["seed"])' \
  "$run/semi/train/config.json")
mkdir -p "$out/train" "$out/tokenizer" "$out/seg"

for seed in "${seeds[@]}"; do
  for v in "${variants[@]}"; do
    name=$v-s$seed
    if [ "$v" = full ] && [ "$seed" = "$main_seed" ]; then
      checkpoint=$run/semi/train/final
    else
      checkpoint=$out/train/$name/final
      if [ ! -f "$checkpoint/meta.json" ]; then
        sets=(--set "train.seed=$seed")
        [ -z "${weight[$v]}" ] || sets+=(--set "${weight[$v]}")
        echo "== train $name (${sets[*]})"
        start=$(date +%s)
        resume=()
        [ ! -f "$out/train/$name/checkpoints/latest" ] || resume=(--resume)
        "$M" -q train --data "$run/semi/prepare" --config configs/tiny.json --out "$out/train/$name" \
          "${sets[@]}" "${resume[@]}" > "$out/train/$name.log" 2>&1
        echo "$(( $(date +%s) - start )) s" > "$out/train/$name/seconds.txt"
      fi
    fi
    MORPHEUS=$M bash scripts/export_tokenizer.sh "$checkpoint" "$out/tokenizer/$name" \
      --vocab-size 50000 --words "$run/types.tsv" --text "$text" "${export_args[@]}" > /dev/null
    if [ ! "$out/seg/$name.tsv" -nt "$out/tokenizer/$name/morpheus.json" ]; then
      "$M" segment --model "$out/tokenizer/$name" "$study/words.txt" -o "$out/seg/$name.tsv"
    fi
  done
done
python3 studies/objective_ablation_summary.py --gold-dir "$study/gold" --seg-dir "$out/seg" \
  --seen "$run/types.tsv" --seeds "${seeds[@]}" --variants "${variants[@]}" > "$out/summary.md"
echo "$out/summary.md"
