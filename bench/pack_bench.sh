#!/usr/bin/env bash
# pack_bench.sh: `morpheus pack` next to `morpheus-spm encode` and `morpheus encode` of the same
# text, in one run. The input is the training text (every word in the tokenizer's segment table:
# a warm table) repeated to SIZE_MB, as one document per line (text.txt) and as JSONL
# ({"text": line}, docs.jsonl). Timed (wall, end to end, process start-up included), each run
# ROUNDS times, the fastest kept:
#   spm       morpheus-spm encode text.txt (ids as text lines)
#   encode    morpheus encode text.txt (ids as text lines): encode alone
#   pack      morpheus pack --format megatron --append-eos docs.jsonl, 1 and 2 workers
#   pack-txt  morpheus pack --plain text.txt: the writer against encode alone
# Printed: the seconds, MB/s of input, and the ratios spm/pack (higher: pack faster) and
# pack-txt/encode (the writer's cost over encode alone, its text output included).
# Usage: bench/pack_bench.sh [BIN_DIR] [TOKDIR] [SPM_DIR] [TEXT] [SIZE_MB] [ROUNDS] [WORK]
# Defaults: build/work/tools, runs/main/tokenizer, runs/main/baselines/spm-unigram-32k,
# runs/main/unsup/prepare/corpus.txt, 50, 2, /tmp/morpheus_pack_bench.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/work/tools}
tok=${2:-runs/main/tokenizer}
spm=${3:-runs/main/baselines/spm-unigram-32k}
text=${4:-runs/main/unsup/prepare/corpus.txt}
size_mb=${5:-50}
rounds=${6:-2}
work=${7:-/tmp/morpheus_pack_bench}
for f in "$bin/morpheus" "$bin/morpheus-spm" "$tok/morpheus.json" "$spm" "$text"; do
  [ -e "$f" ] || { echo "missing $f (build, run scripts/main.sh, or pass paths)" >&2; exit 1; }
done
mkdir -p "$work"
python3 - "$text" "$work" "$size_mb" <<'PY'
import json, sys
lines = [l for l in open(sys.argv[1], encoding="utf-8").read().split("\n") if l]
want = float(sys.argv[3]) * 1e6
out, size = [], 0
while size < want:
    for l in lines:
        out.append(l)
        size += len(l.encode()) + 1
        if size >= want:
            break
open(sys.argv[2] + "/text.txt", "w", encoding="utf-8").write("\n".join(out) + "\n")
with open(sys.argv[2] + "/docs.jsonl", "w", encoding="utf-8") as f:
    f.writelines(json.dumps({"text": l}, ensure_ascii=False) + "\n" for l in out)
print(f"input: {len(out)} lines, {size / 1e6:.1f} MB of text")
PY
in_txt=$work/text.txt
in_jsonl=$work/docs.jsonl
mb=$(python3 -c "import os; print(os.path.getsize('$in_txt') / 1e6)")
t() {  # t COMMAND...: wall seconds of the fastest of $rounds runs
  local best="" s e d
  for _ in $(seq "$rounds"); do
    s=$(date +%s.%N)
    "$@" > /dev/null 2>&1 || { echo "FAILED: $*" >&2; exit 1; }
    e=$(date +%s.%N)
    d=$(python3 -c "print($e - $s)")
    best=$(python3 -c "print(min(float('${best:-inf}'), $d))")
  done
  echo "$best"
}
m=("$bin/morpheus" -q)
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; commit $(git rev-parse --short HEAD 2> /dev/null || echo ?)"
"${m[@]}" encode --model "$tok" "$in_txt" -o /dev/null  # warms the page cache and the table
spm_s=$(t "$bin/morpheus-spm" encode --model "$spm" "$in_txt" -o "$work/spm.ids")
enc_s=$(t "${m[@]}" encode --model "$tok" "$in_txt" -o "$work/enc.ids")
p1_s=$(t "${m[@]}" pack --model "$tok" --out "$work/p1" --append-eos "$in_jsonl")
p2_s=$(t "${m[@]}" pack --model "$tok" --out "$work/p2" --append-eos --workers 2 "$in_jsonl")
txt_s=$(t "${m[@]}" pack --model "$tok" --out "$work/pt" --plain "$in_txt")
cmp -s "$work/p1.bin" "$work/p2.bin" && cmp -s "$work/p1.idx" "$work/p2.idx" \
  || { echo "--workers 2 changed the pack" >&2; exit 1; }
python3 - "$mb" "$spm_s" "$enc_s" "$p1_s" "$p2_s" "$txt_s" <<'PY'
import sys
mb, spm, enc, p1, p2, txt = map(float, sys.argv[1:])
row = lambda name, s: print(f"{name:<34} {s:7.2f} s  {mb / s:6.1f} MB/s")
row("morpheus-spm encode (text)", spm)
row("morpheus encode (text)", enc)
row("morpheus pack megatron (jsonl)", p1)
row("morpheus pack megatron --workers 2", p2)
row("morpheus pack --plain (text)", txt)
print(f"pack vs spm: {spm / p1:.2f}x (1 worker), {spm / p2:.2f}x (--workers 2); "
      f"pack --plain vs encode alone: {100 * (txt / enc - 1):+.1f} %")
PY
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
