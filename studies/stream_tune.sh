#!/usr/bin/env bash
# Chooses the id stream's shares (export --word-initial-share, --merge-share) on the training
# text's own held-out part, never on the language-model study's validation text or a gold report
# part. Usage: studies/stream_tune.sh CHECKPOINT TRAIN OUT [SETTING...]
#   CHECKPOINT  the study's Morpheus model (runs/lm/morpheus/semi/train/final)
#   TRAIN       the study's training part (runs/lm/data/train.txt: the validation lines are out)
#   SETTING     NAME=export options, e.g. "wi25-m10=--word-initial-share 0.25 --merge-share 0.1"
#               (default: the grid below)
# The tune part: the lines of TRAIN whose FNV-1a hash mod 10^6 is below 105,000 (`morpheus lm
# split`; the study's validation lines, below 50,000, are already out of TRAIN), about 5.3 % of
# it; the fit part is the rest. Every setting exports the checkpoint at LM_VOCAB ids from the fit
# part's word types (letter words, whitespace-split) with the threshold and root snap of
# runs/lm/morpheus/semi/threshold/export_args.txt, encodes both parts, trains the small-scale GPT
# of configs/lm_small.json on the fit ids (one seed) and scores the tune part: tokens per
# character and bits per character. Writes OUT/summary.tsv (the choice is its lowest BPC) and
# OUT/<setting>/; resumable (finished settings are kept). STREAM_TUNE_LM=0: tokens per character
# only (no GPT).
set -euo pipefail
cd "$(dirname "$0")/.."
checkpoint=$1 train=$2 out=$3
shift 3
M=${MORPHEUS:-build/dev/tools/morpheus}
V=${LM_VOCAB:-8192}
args_file=${STREAM_EXPORT_ARGS:-runs/lm/morpheus/semi/threshold/export_args.txt}
settings=("$@")
if [ ${#settings[@]} -eq 0 ]; then
  settings=("spaces=--no-word-initial"
    "wi15=--word-initial-share 0.15" "wi25=--word-initial-share 0.25"
    "wi35=--word-initial-share 0.35"
    "wi25-m10=--word-initial-share 0.25 --merge-share 0.1"
    "wi25-m20=--word-initial-share 0.25 --merge-share 0.2"
    "wi25-m30=--word-initial-share 0.25 --merge-share 0.3")
fi
mkdir -p "$out"
fit=$out/fit.txt tune=$out/tune.txt
[ -f "$out/split.json" ] || $M lm split --text "$train" --share 0.105 --min-chars 100000 \
  --train-out "$fit" --valid-out "$tune" --stats "$out/split.json"
[ -f "$out/fit_types.tsv" ] || python3 - "$fit" "$out/fit_types.tsv" <<'PY'
import collections, sys
counts = collections.Counter(w for line in open(sys.argv[1], encoding="utf-8")
                             for w in line.split() if w.isalpha())
with open(sys.argv[2], "w", encoding="utf-8") as f:
    for w, c in counts.most_common():
        f.write(f"{w}\t{c}\n")
PY

# one NAME OPTIONS: export, ids, the GPT and the tune part's figures of one setting.
one() {
  local name=$1 dir=$out/$1
  shift
  mkdir -p "$dir"
  [ -f "$dir/result.json" ] && return
  # shellcheck disable=SC2046,SC2068
  MORPHEUS=$M bash scripts/export_tokenizer.sh "$checkpoint" "$dir/tok" --vocab-size "$V" \
    --words "$out/fit_types.tsv" --text "$fit" $(cat "$args_file") $@ > "$dir/export.log" 2>&1
  $M encode --model "$dir/tok" "$fit" -o "$dir/fit.ids"
  $M encode --model "$dir/tok" "$tune" -o "$dir/tune.ids"
  if [ "${STREAM_TUNE_LM:-1}" = 0 ]; then  # tokens per character only
    python3 - "$dir/tune.ids" "$tune" "$dir/result.json" <<'PY'
import json, sys
ids = sum(len(line.split()) for line in open(sys.argv[1]))
chars = sum(len(line) for line in open(sys.argv[2], encoding="utf-8"))  # code points + line ends
json.dump({"valid_tokens_per_char": ids / chars, "valid_bpc": float("nan")}, open(sys.argv[3], "w"))
PY
    return
  fi
  $M lm train --train "$dir/fit.ids" --valid "$dir/tune.ids" --valid-text "$tune" \
    --vocab-size "$V" --config configs/lm_small.json --set lm.seed=1 --out "$dir/lm" \
    --resume > "$dir/train.log" 2>&1
  cp "$dir/lm/result.json" "$dir/result.json"
}

JOBS=${LM_JOBS:-2}
for s in "${settings[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done
  # shellcheck disable=SC2086
  one "${s%%=*}" ${s#*=} &
done
wait
python3 - "$out" "${settings[@]}" <<'PY'
import json, sys
out, settings = sys.argv[1], sys.argv[2:]
rows = []
for s in settings:
    name, options = s.split("=", 1)
    try:
        r = json.load(open(f"{out}/{name}/result.json"))
        stream = json.load(open(f"{out}/{name}/tok/morpheus.json"))["stream"]
    except (OSError, ValueError, KeyError):
        print(f"stream_tune: {name} did not finish", file=sys.stderr)
        continue
    rows.append((r["valid_bpc"], name, options, r["valid_tokens_per_char"],
                 stream.get("word_initial_pieces", 0), stream.get("merged_pieces", 0)))
with open(f"{out}/summary.tsv", "w") as f:
    f.write("setting\toptions\ttune_tokens_per_char\ttune_bpc\tword_initial_pieces\tmerged_pieces\n")
    for bpc, name, options, tpc, wi, mp in sorted(rows, key=lambda r: r[1]):
        f.write(f"{name}\t{options}\t{tpc:.4f}\t{bpc:.4f}\t{wi}\t{mp}\n")
print(open(f"{out}/summary.tsv").read(), end="")
scored = [r for r in rows if r[0] == r[0]]  # BPC measured (not NaN)
if scored:
    print("lowest tune BPC:", min(scored)[1])
elif rows:
    print("lowest tune tokens per character:", min(rows, key=lambda r: r[3])[1])
PY
