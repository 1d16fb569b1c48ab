#!/usr/bin/env bash
# cold_encode_bench.sh: the tokenizer's model path from a fresh process, next to
# `morpheus-spm encode` in the same run.
#   * first new word: `morpheus encode` of one line holding one letter run the segment table
#     lacks (load, engine, root snap, first answer), and of one line the table knows (load
#     only); `morpheus-spm encode` of the same line; median wall seconds of REPS runs each;
#   * cold encode of TEXT (default: the UD dev sentences; no cache file, so every distinct run
#     the table lacks goes through the engine): `morpheus encode` with the default one model
#     thread and with --model-threads 2, next to `morpheus-spm encode`, REPS alternating runs,
#     medians, with the ratio spm/morpheus (higher: morpheus faster). Both morpheus runs must
#     give the same ids.
# Usage: bench/cold_encode_bench.sh [BIN_DIR] [TOKDIR] [SPM_DIR] [TEXT] [REPS]
# Defaults: build/dev/tools, runs/main/tokenizer, runs/main/baselines/spm-unigram-32k, the UD dev
# sentences of the shared data, 5.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/dev/tools}
tok=${2:-runs/main/tokenizer}
spm=${3:-runs/main/baselines/spm-unigram-32k}
text=${4:-${MORPHEUS_SHARED_DATA:-../shared/data}/corpus/dev_ud_sentences.txt}
reps=${5:-5}
for f in "$bin/morpheus" "$bin/morpheus-spm" "$tok/morpheus.json" "$spm" "$text"; do
  [ -e "$f" ] || { echo "missing $f (build, run scripts/main.sh, or pass paths)" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'Zqxwvzqxwlarımızdan\n' > "$work/new.txt"
printf 'kitap\n' > "$work/known.txt"
wall() {  # wall COMMAND...: wall seconds of one run, output discarded
  local s e
  s=$(date +%s%N)
  "$@" > /dev/null 2> "$work/err" || { cat "$work/err" >&2; echo "FAILED: $*" >&2; exit 1; }
  e=$(date +%s%N)
  echo "$(((e - s) / 1000))"
}
median() { sort -n | awk '{ a[NR] = $1 } END { printf "%.3f", a[int((NR + 1) / 2)] / 1e6 }'; }
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); commit $(git rev-parse --short HEAD)"
echo "$(grep -c '' "$text") lines of $text; tokenizer $tok"

declare -A runs
for _ in $(seq "$reps"); do
  runs[new]+="$(wall "$bin/morpheus" encode --model "$tok" "$work/new.txt") "
  runs[known]+="$(wall "$bin/morpheus" encode --model "$tok" "$work/known.txt") "
  runs[spm1]+="$(wall "$bin/morpheus-spm" encode --model "$spm" "$work/new.txt") "
done
m() { tr ' ' '\n' <<< "${runs[$1]}" | grep . | median; }
echo "process start to the first new word: $(m new) s (a table word: $(m known) s;" \
  "morpheus-spm encode of the new word: $(m spm1) s); target <= 0.050 s"

for _ in $(seq "$reps"); do
  runs[spm]+="$(wall "$bin/morpheus-spm" encode --model "$spm" "$text") "
  runs[cold]+="$(wall "$bin/morpheus" encode --model "$tok" -o "$work/a.ids" "$text") "
  runs[cold2]+="$(wall "$bin/morpheus" encode --model "$tok" --model-threads 2 \
    -o "$work/b.ids" "$text") "
  cmp -s "$work/a.ids" "$work/b.ids" || { echo "--model-threads 2 gave other ids" >&2; exit 1; }
done
python3 - "$(m spm)" "$(m cold)" "$(m cold2)" <<'PY'
import sys
spm, cold, cold2 = map(float, sys.argv[1:])
print(f"cold encode: morpheus-spm {spm:.3f} s; morpheus {cold:.3f} s ({spm / cold:.2f}x spm), "
      f"--model-threads 2 {cold2:.3f} s ({spm / cold2:.2f}x); target >= 0.33x")
PY
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
