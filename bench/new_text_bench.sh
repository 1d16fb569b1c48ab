#!/usr/bin/env bash
# new_text_bench.sh: `morpheus encode` of text the tokenizer has never seen, next to
# `morpheus-spm encode` in the same run. The npm corpus is split by line (even lines held apart);
# a tokenizer is exported from CHECKPOINT with the word types of the odd lines only, so about
# 45 % of the held-apart lines' distinct letter runs miss its segment table; the input is
# the held-apart lines, 4 shuffled copies (≈ 12 MB). Timed (wall, end to end, process start-up
# included), each twice: spm; morpheus cold (no cache: every miss through the model), also with
# --workers 2 and with --model-threads 2; morpheus with --cache-file, first run (fills the cache)
# and second run (reads it), the second also with --workers 2. Every morpheus output must be the same ids.
# Usage: bench/new_text_bench.sh [MORPHEUS_BIN_DIR] [CHECKPOINT] [SPM_MODEL_DIR] [WORK]
# Defaults: build/dev/tools, runs/main/semi/train/final (threshold 0.42, as the shipped
# tokenizer), runs/main/baselines/spm-unigram-32k, /tmp/morpheus_new_text_bench.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/dev/tools}
checkpoint=${2:-runs/main/semi/train/final}
spm=${3:-runs/main/baselines/spm-unigram-32k}
work=${4:-/tmp/morpheus_new_text_bench}
corpus=node_modules/nlptoolkit-corpus/corpus.txt
for f in "$bin/morpheus" "$bin/morpheus-spm" "$checkpoint/model.pt" "$spm" "$corpus"; do
  [ -e "$f" ] || { echo "missing $f (build, run scripts/main.sh, or pass paths)" >&2; exit 1; }
done
mkdir -p "$work"
python3 bench/new_text_input.py "$corpus" "$work"
tok=$work/tok
if [ ! -f "$tok/morpheus.json" ]; then
  "$bin/morpheus" export --checkpoint "$checkpoint" --out "$tok" --words "$work/train_words.tsv" \
    --threshold 0.42 2>&1 | tail -1
fi
in=$work/new_text.txt
t() {  # t LABEL COMMAND...: wall seconds of one run
  local s e
  s=$(date +%s.%N)
  "${@:2}" > /dev/null 2>&1 || { echo "FAILED: ${*:2}" >&2; exit 1; }
  e=$(date +%s.%N)
  python3 -c "print(f'{$e - $s:.2f}')"
}
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); commit $(git rev-parse --short HEAD)"
for round in 1 2; do
  rm -f "$work/run.cache"
  s=$(t spm "$bin/morpheus-spm" encode --model "$spm" "$in" -o "$work/spm.ids")
  c=$(t cold "$bin/morpheus" -q encode --model "$tok" "$in" -o "$work/m.ids")
  c2=$(t cold2 "$bin/morpheus" -q encode --model "$tok" --workers 2 "$in" -o "$work/mw.ids")
  ct=$(t coldt "$bin/morpheus" -q encode --model "$tok" --model-threads 2 "$in" -o "$work/mt.ids")
  f=$(t fill "$bin/morpheus" -q encode --model "$tok" --cache-file "$work/run.cache" "$in" \
    -o "$work/m1.ids")
  w=$(t cached "$bin/morpheus" -q encode --model "$tok" --cache-file "$work/run.cache" "$in" \
    -o "$work/m2.ids")
  w2=$(t cached2 "$bin/morpheus" -q encode --model "$tok" --cache-file "$work/run.cache" \
    --workers 2 "$in" -o "$work/m3.ids")
  for o in m2 mw mt m3; do
    cmp -s "$work/m.ids" "$work/$o.ids" || { echo "$o output differs" >&2; exit 1; }
  done
  python3 -c "
s, c, c2, ct, f, w, w2 = $s, $c, $c2, $ct, $f, $w, $w2
print(f'round $round: morpheus-spm encode {s:.2f} s; morpheus encode cold {c:.2f} s '
      f'({s / c:.2f}x spm; --workers 2 {c2:.2f} s, {s / c2:.2f}x; --model-threads 2 {ct:.2f} s, '
      f'{s / ct:.2f}x), with --cache-file: first '
      f'{f:.2f} s ({s / f:.2f}x), second {w:.2f} s ({s / w:.2f}x spm; --workers 2 {w2:.2f} s, '
      f'{s / w2:.2f}x)')"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
