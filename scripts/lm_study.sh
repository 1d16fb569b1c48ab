#!/usr/bin/env bash
# The language-model study (lm/README.md): does a small GPT learn Turkish better on Morpheus ids?
# Validation bits per character at equal compute, reversible tokenizers only.
# Usage: scripts/lm_study.sh [RUN_DIR]        RUN_DIR: the main job's artifacts (default runs/main)
# Reads RUN_DIR/unsup/prepare/{corpus.txt,teacher.tsv} (the one training text; CBPE's boundaries),
# RUN_DIR/semi/train/final, RUN_DIR/semi/threshold/export_args.txt and RUN_DIR/types.tsv (Morpheus
# exported at the study's vocabulary size as the main job exports it), RUN_DIR/tokenizer (the
# shipped 50K tokenizer) and ../shared/data (dev sentences, hybrid lexicon).
# Writes $LM_OUT (default runs/lm): data/ (validation text), tok/ (tokenizers), ids/ (their ids
# and decodes), systems/<name>/ (system.json, gate.json, seed-S/ runs of `morpheus lm train` with
# generate-b1/b32.json), study.json, report.md and bpc_vs_step.png.
# Resumable: tokenizers, ids, gates and finished runs are kept; an interrupted run continues from
# its checkpoint; everything starts over when the training or dev text, the config, the vocabulary
# size or LM_SET change. Runs go seed by seed over all systems, so a stopped study has paired
# seeds; each run's log is its train.log.
# Environment: LM_OUT, LM_CONFIG (configs/lm_small.json), LM_SEEDS ("1 2 3"), LM_VOCAB (8192),
# LM_SET (extra `--set` values for lm train, space-separated), LM_DEVICE (cpu), LM_JOBS (runs at
# a time, default 2), LM_SYSTEMS (the systems to run, default all), LM_MATCH (tokens, the default:
# compute-matched; chars: character-matched, see train() below), MORPHEUS (the front, default
# build/dev/tools/morpheus).
set -euo pipefail
cd "$(dirname "$0")/.."
R=${1:-runs/main}
OUT=${LM_OUT:-runs/lm}
CONFIG=${LM_CONFIG:-configs/lm_small.json}
SEEDS=${LM_SEEDS:-1 2 3}
V=${LM_VOCAB:-8192}
DEVICE=${LM_DEVICE:-cpu}
M=${MORPHEUS:-build/dev/tools/morpheus}
SPM=$(dirname "$M")/morpheus-spm
SHARED=${MORPHEUS_SHARED_DATA:-../shared/data}
TRAIN=$R/unsup/prepare/corpus.txt
DEV=$SHARED/corpus/dev_ud_sentences.txt
K=$((V / 1024))k
ALL="morpheus-$K cbpe-$K spm-bpe-$K spm-unigram-$K morpheus-50k hybrid-lossless chars hybrid"
SYSTEMS=${LM_SYSTEMS:-$ALL}
start=$(date +%s)
stage() { echo "== [$(($(date +%s) - start))s] $*"; }
fail() { echo "lm_study: $*" >&2; exit 1; }
for f in "$TRAIN" "$DEV" "$CONFIG" "$M"; do [ -e "$f" ] || fail "missing $f (run scripts/main.sh)"; done

sets=()
for s in ${LM_SET:-}; do sets+=(--set "$s"); done
stamp="$(cksum < "$TRAIN") $(cksum < "$DEV") $(cksum < "$CONFIG") $V ${LM_SET:-} ${LM_MATCH:-}"
stamp+=" $(cksum < "$R/semi/train/final/meta.json" 2>/dev/null || true)"
if [ -d "$OUT" ] && [ "$(cat "$OUT/stamp.txt" 2>/dev/null)" != "$stamp" ]; then
  echo "lm_study: inputs changed, starting $OUT over"
  rm -rf "$OUT"
fi
mkdir -p "$OUT/data" "$OUT/tok" "$OUT/ids" "$OUT/systems"
echo "$stamp" > "$OUT/stamp.txt"

stage "validation text: the UD dev sentences the training text does not hold"
VALID=$OUT/data/valid.txt
[ -f "$OUT/data/split.json" ] ||
  $M lm heldout --train "$TRAIN" --dev "$DEV" -o "$VALID" --stats "$OUT/data/split.json"
cat "$OUT/data/split.json"
$M lm info --config "$CONFIG" "${sets[@]}" --vocab-size "$V" > "$OUT/data/info.json"

# system NAME: sets ROLE, KIND, TOK (what `lm vocab-size` reads), ENC, DEC (commands taking an input
# file and -o) and DESC, and builds the tokenizer when it is missing.
system() {
  local name=$1 t=$OUT/tok/$1
  ROLE=primary TOK=$t
  case $name in
    morpheus-$K)
      KIND=morpheus DESC="Morpheus, semi checkpoint, main job's export options, --vocab-size $V"
      MORPHEUS=$M bash scripts/export_tokenizer.sh "$R/semi/train/final" "$t" --vocab-size "$V" \
        --words "$R/types.tsv" --text "$TRAIN" $(cat "$R/semi/threshold/export_args.txt") >&2
      ENC="$M encode --model $t" DEC="$M decode --model $t" ;;
    cbpe-$K)
      # Its codec adds byte and case ids to the BPE tokens: trained again with that many fewer
      # tokens, its ids number V like the others'.
      KIND=cbpe DESC="constrained BPE on the unsup teacher's boundaries, $V ids"
      if [ ! -f "$t/cbpe.json" ]; then
        local n=$V
        for _ in 1 2; do
          $M cbpe train --corpus "$TRAIN" --boundaries "$R/unsup/prepare/teacher.tsv" \
            --vocab-size "$n" --out "$t" >&2
          n=$((n - $($M lm vocab-size --kind cbpe "$t") + V))
          [ "$n" -ne "$V" ] || break
        done
      fi
      ENC="$M cbpe encode --model $t" DEC="$M cbpe decode --model $t" ;;
    spm-bpe-$K | spm-unigram-$K)
      local type=${name#spm-}
      type=${type%-"$K"}
      KIND=spm DESC="SentencePiece $type, --vocab-size $V"
      [ -f "$t/spm.json" ] || $SPM train --corpus "$TRAIN" --type "$type" --vocab-size "$V" \
        --out "$t" >&2
      ENC="$SPM encode --model $t" DEC="$SPM decode --model $t" ;;
    morpheus-50k)
      ROLE=secondary KIND=morpheus TOK=$R/tokenizer DESC="the main job's shipped Morpheus tokenizer"
      ENC="$M encode --model $TOK" DEC="$M decode --model $TOK" ;;
    hybrid-lossless | hybrid)
      ROLE=secondary KIND=$name TOK=$SHARED/hybrid
      local flag=""
      [ "$name" = hybrid ] && DESC="hybrid tokenizer, reference mode" ||
        { flag=--lossless DESC="hybrid tokenizer, lossless mode (its lexicon's vocabulary)"; }
      ENC="$M hybrid encode --lexicon $TOK $flag" DEC="$M hybrid decode --lexicon $TOK $flag" ;;
    chars)
      ROLE=secondary KIND=chars TOK=$t.json DESC="code points of the training text + byte fallback"
      [ -f "$TOK" ] || $M lm chars train --corpus "$TRAIN" --out "$TOK" >&2
      ENC="$M lm chars encode --model $TOK" DEC="$M lm chars decode --model $TOK" ;;
    *) fail "unknown system $name (systems: $ALL)" ;;
  esac
}

# prepare NAME: ids of both texts, their decodes, the gate and system.json.
prepare() {
  local name=$1 order=$2 dir=$OUT/systems/$1 ids=$OUT/ids/$1
  system "$name"
  mkdir -p "$dir"
  [ -f "$dir/system.json" ] && [ -f "$dir/gate.json" ] && return
  local vocab
  vocab=$($M lm vocab-size --kind "$KIND" "$TOK")
  for part in train valid; do
    local text=$TRAIN
    [ $part = valid ] && text=$VALID
    [ -f "$ids.$part.ids" ] || $ENC "$text" -o "$ids.$part.ids" ||
      { echo "lm_study: $name: encode failed" >&2; : > "$ids.$part.ids"; }
    [ -f "$ids.$part.decoded" ] || $DEC "$ids.$part.ids" -o "$ids.$part.decoded" ||
      { echo "lm_study: $name: decode failed" >&2; : > "$ids.$part.decoded"; }
  done
  cat "$TRAIN" "$VALID" > "$ids.text.tmp"
  cat "$ids.train.ids" "$ids.valid.ids" > "$ids.ids.tmp"
  cat "$ids.train.decoded" "$ids.valid.decoded" > "$ids.decoded.tmp"
  $M lm check --text "$ids.text.tmp" --ids "$ids.ids.tmp" --decoded "$ids.decoded.tmp" \
    --vocab-size "$vocab" -o "$dir/gate.json"
  rm -f "$ids".*.tmp
  python3 - "$dir/system.json" "$name" "$ROLE" "$vocab" "$DESC" "$order" <<'PY'
import json, sys
path, name, role, vocab, desc, order = sys.argv[1:]
json.dump({"name": name, "role": role, "vocab_size": int(vocab), "tokenizer": desc,
           "order": int(order)}, open(path, "w"), indent=2)
PY
  echo "$name: vocabulary $vocab, gate $(python3 -c 'import json,sys; g=json.load(open(sys.argv[1])); print("passed" if g["reversible"] else "failed on %d lines" % g["failed_lines"])' "$dir/gate.json")"
}

order=0
for name in $SYSTEMS; do
  stage "tokenizer, ids and gate: $name"
  prepare "$name" $order
  order=$((order + 1))
done

reversible() { python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["reversible"] else 1)' "$1"; }
field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }

# Training tokens (ids + one end-of-line id per line) per character of the training text.
train_tpc() {
  python3 -c 'import sys; print((int(sys.argv[1]) + int(sys.argv[2])) / int(sys.argv[3]))' \
    "$(wc -w < "$OUT/ids/$1.train.ids")" "$(wc -l < "$OUT/ids/$1.train.ids")" \
    "$(field "$OUT/data/split.json" train_characters)"
}

# train NAME SEED: one run (continued from its checkpoint when it has one), its log in train.log.
# LM_MATCH=chars (the secondary, character-matched view; use its own LM_OUT): every system reads
# as many training characters as the reference does in lm.steps, its steps scaled by its
# training tokens per character over the reference's.
train() {
  local name=$1 seed=$2 dir=$OUT/systems/$1 run=$OUT/systems/$1/seed-$2 steps=()
  mkdir -p "$run"
  if [ "${LM_MATCH:-tokens}" = chars ]; then
    steps=(--set "lm.steps=$(python3 -c 'import sys; print(max(1, round(int(sys.argv[1]) * float(sys.argv[2]) / float(sys.argv[3]))))' \
      "$(field "$OUT/data/info.json" steps)" "$(train_tpc "$name")" "$(train_tpc "morpheus-$K")")")
  fi
  $M lm train --train "$OUT/ids/$name.train.ids" --valid "$OUT/ids/$name.valid.ids" \
    --valid-text "$VALID" --vocab-size "$(field "$dir/system.json" vocab_size)" \
    --config "$CONFIG" "${sets[@]}" "${steps[@]}" --set lm.seed="$seed" --out "$run" \
    --device "$DEVICE" --resume > "$run/train.log" 2>&1
}

# Seed by seed over every reversible system, LM_JOBS runs at a time (default 2: one per core of
# the 2-core machine, each on one intra-op thread, as configs/lm_small.json sets).
JOBS=${LM_JOBS:-2}
expected=()
for seed in $SEEDS; do
  for name in $SYSTEMS; do
    reversible "$OUT/systems/$name/gate.json" || continue
    expected+=("$OUT/systems/$name/seed-$seed")
    [ -f "$OUT/systems/$name/seed-$seed/result.json" ] && continue
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done
    stage "lm train: $name, seed $seed"
    train "$name" "$seed" &
  done
done
wait
for run in "${expected[@]}"; do
  [ -f "$run/result.json" ] || fail "$run did not finish: see $run/train.log (rerun to resume)"
done

# Generation speed of the first seed's model, one measurement at a time (nothing else running).
GEN_TOKENS=$(python3 -c 'import json,sys; print(min(255, json.load(open(sys.argv[1]))["context"] - 1))' "$OUT/data/info.json")
first_seed=${SEEDS%% *}
for name in $SYSTEMS; do
  run=$OUT/systems/$name/seed-$first_seed
  [ -f "$run/final.pt" ] || continue
  for b in 1 32; do
    [ -f "$run/generate-b$b.json" ] || $M lm generate --checkpoint "$run/final.pt" \
      --tokens "$GEN_TOKENS" --batch $b --device "$DEVICE" -o "$run/generated-b$b.ids" \
      --stats "$run/generate-b$b.json"
  done
done

stage "report"
python3 - "$OUT" "$TRAIN" "$DEV" "$CONFIG" "$SEEDS" "morpheus-$K" "$DEVICE" "$JOBS" \
  "${LM_MATCH:-tokens}" "$(($(date +%s) - start))" <<'PY'
import json, os, sys
out, train, dev, config, seeds, ref, device, jobs, match, seconds = sys.argv[1:]
split = json.load(open(f"{out}/data/split.json"))
info = json.load(open(f"{out}/data/info.json"))
lm = json.load(open(config))["lm"]
steps, tps = info["steps"], info["tokens_per_step"]
setup = [
    f"- Training text: `{train}`, {split['train_lines']:,} lines, "
    f"{split['train_characters']:,} characters.",
    f"- Validation text: the {split['dev_lines']:,} UD dev sentences (`{dev}`) less the "
    f"{split['removed']:,} that also occur in the training text (Turkish lower case, whitespace "
    f"removed): {split['valid_lines']:,} lines, {split['valid_characters']:,} characters "
    "(code points plus one per line end). The same text and the same denominator for every system.",
    f"- Config `{config}`: " + " ".join(lm.get("note", [])),
    f"- Every system trains the same architecture ({info['parameter_budget']:,.0f} parameters by "
    f"the reference formula, width solved per vocabulary) on {tps:,} target tokens per step. "
    + (f"Compute-matched: {steps:,} steps ({tps * steps:,} tokens) each; how much text that "
       "covers differs: characters = tokens ÷ tokens/char." if match == "tokens" else
       f"Character-matched: each system's steps are {steps:,} × its training tokens/char ÷ "
       f"{ref}'s, so every run reads as many training characters as {ref}'s (compute differs)."),
    f"- Seeds {', '.join(seeds.split())}, paired: seed s gives every system the same "
    "initialisation seed and the same order of training lines.",
    f"- Device `{device}`, {os.cpu_count()} CPU cores, {jobs} training runs at a time (training "
    "tokens/s are measured so); generation alone. This invocation of the study took "
    f"{int(seconds) // 60} min.",
]
notes = [
    "",
    "**Reading the table.** *primary* rows share one vocabulary size and are the comparison; "
    "*secondary* rows (the shipped 50K Morpheus tokenizer, the hybrid tokenizer's own lexicon, "
    "characters) have other vocabularies, so their width differs and their BPC mixes the "
    "tokenizer with the vocabulary size. Δ is the paired difference to the reference row over the "
    "seeds both ran, with a 95 % Student-t interval; *resolved* means the interval excludes 0. "
    "BPC = Σ −log₂ p over every token and end-of-line id of the validation stream ÷ (code points "
    "+ line ends of the raw validation text), scored in non-overlapping windows of the context "
    "length. A system gets a BPC only when decode(encode(line)) == line on every training and "
    "validation line and every id is below its vocabulary size.",
    "",
    "**Efficiency.** tokens/char on the validation text (end-of-line ids included); training "
    "tokens/s over the optimiser steps; generation chars/s = sampled tokens/s with the KV cache "
    "(one sequence, and 32 at once, from a line start) × validation chars/token; peak memory is "
    "the process's peak RSS on the CPU (the CUDA allocator's peak on a GPU). With the parameters "
    "equalized, the vocabulary drives the memory difference: the logits and their gradient take "
    "B·T·(V+1) floats per step and the embedding V·d.",
]
if match == "tokens":
    notes += [
        "",
        "**Not in this run: the character-matched view** (`LM_MATCH=chars` with its own "
        "`LM_OUT`): every system reading as many training characters as the reference, its steps "
        "scaled by its tokens/char. It costs about tokens/char ÷ the reference's times the "
        "compute per system (the character-level system alone several times a whole seed here).",
    ]
json.dump({"title": "Does a language model learn Turkish better on Morpheus ids?",
           "reference": ref, "setup": setup, "notes": notes}, open(f"{out}/study.json", "w"),
          indent=2)
PY
$M lm report --study "$OUT"
stage "done: $OUT/report.md"
cat "$OUT/report.md"
