#!/usr/bin/env bash
# The student study's diagnosis, on the TUNE part of the gold sets only: where the shipped
# student (runs/main/tokenizer) wins or loses against its teacher with the root snap
# (teacher-semi-snap) and against the unsup student, by boundary type (the stem edge vs the
# later boundaries), word length and seen/unseen, with paired bootstrap intervals
# (studies/boundary_breakdown.py). Writes OUT/<gold set>.md and OUT/seg/<system>.tsv.
# Usage: studies/student_diagnosis.sh [RUN_DIR] [OUT]   (defaults: runs/main, runs/study)
# MORPHEUS: the front (default build/dev/tools/morpheus); MORPHEUS_SHARED_DATA: the shared data.
set -euo pipefail
cd "$(dirname "$0")/.."
run=${1:-runs/main} out=${2:-runs/study}
M=${MORPHEUS:-build/dev/tools/morpheus}
gold_dir=${MORPHEUS_SHARED_DATA:-../shared/data}/gold
for f in "$M" "$run/tokenizer/morpheus.json" "$run/unsup/tokenizer/morpheus.json" \
    "$run/semi/prepare/prepare.json" "$run/types.tsv" "$gold_dir"; do
  [ -e "$f" ] || { echo "missing $f (build, and run scripts/main.sh first)" >&2; exit 1; }
done
mkdir -p "$out/gold" "$out/seg"
declare -A file=([mc2010]=mc2010_tur_trainset.tsv [ud_types]=ud_types_segmentation.tsv
  [penn]=penn_tokens_segmentation.tsv [ud_stem_boundary]=ud_stem_boundary_tokens.tsv)
sets=(mc2010 ud_types penn ud_stem_boundary)
for g in "${sets[@]}"; do
  "$M" -q gold-split --gold "$g" --part tune "$gold_dir/${file[$g]}" -o "$out/gold/$g.tsv"
  python3 studies/boundary_breakdown.py --gold-set "$g" --gold "$out/gold/$g.tsv" --list-words
done | LC_ALL=C sort -u > "$out/words.txt"
declare -A segment=(
  [morpheus]="$M segment --model $run/tokenizer"
  [morpheus-unsup]="$M segment --model $run/unsup/tokenizer"
  [teacher-semi-snap]="$M teacher --data $run/semi/prepare --root-snap"
)
for s in morpheus morpheus-unsup teacher-semi-snap; do
  ${segment[$s]} "$out/words.txt" > "$out/seg/$s.tsv"
done
for g in "${sets[@]}"; do
  python3 studies/boundary_breakdown.py --gold-set "$g" --gold "$out/gold/$g.tsv" \
    --seg morpheus="$out/seg/morpheus.tsv" --seg teacher-semi-snap="$out/seg/teacher-semi-snap.tsv" \
    --seg morpheus-unsup="$out/seg/morpheus-unsup.tsv" --seen "$run/types.tsv" \
    --compare morpheus:teacher-semi-snap --compare morpheus:morpheus-unsup > "$out/$g.md"
  echo "$out/$g.md"
done
