#!/usr/bin/env bash
# The language-model study (lm/README.md): does a GPT learn Turkish better on Morpheus ids, and
# how much of a difference is segmentation rather than case handling? Validation bits per
# character at equal compute, reversible tokenizers only, at two model scales.
# Usage: studies/lm_study.sh [RUN_DIR]        RUN_DIR: the main job's artifacts (default runs/main)
# Reads RUN_DIR/unsup/prepare/corpus.txt (the main job's training text), RUN_DIR/mc2010_tune.tsv
# and RUN_DIR/mc2010_annotations.tsv, and ../shared/data (dev sentences, gold sets, hybrid lexicon).
#   1. data      5 % of the training text's lines (by a hash of the line, `morpheus lm split`) are
#                held out before any tokenizer or model sees them: the in-distribution validation
#                text; every system learns from the other 95 %. The UD dev sentences less the
#                lines the training text holds are the out-of-domain text (`lm heldout`).
#   2. morpheus  the study's own Morpheus model: `morpheus prepare` (unsup and semi teachers, as
#                the main job) and `morpheus train` of semi on the training part; threshold and
#                root snap chosen on the tune part of the gold sets (scripts/choose_threshold.sh).
#   3. tokenizers at exactly LM_VOCAB ids: morpheus; the case-matched controls bpe and unigram
#                (`morpheus export-plain`: Morpheus's pre-tokenizer, case layer, vocabulary
#                distillation and table, only the cut of the letter runs differs); cbpe on the
#                unsup teacher's boundaries; off the shelf, SentencePiece BPE and Unigram on the
#                raw text (identity normalization, dummy prefix on). Secondary: characters, the
#                hybrid tokenizer (lossless and reference modes).
#   4. ids and the reversibility gate on the training, validation and out-of-domain texts.
#   5. per scale (LM_SCALES, configs/lm_<scale>.json), per seed, per system: `morpheus lm train`
#      (in-distribution validation BPC) and `morpheus lm eval` on the out-of-domain text (BPC of
#      its all-upper-case lines and of the others). The first scale runs every system with
#      LM_SEEDS; the others LM_LARGER (Morpheus, the case-matched BPE control and off-the-shelf
#      SentencePiece BPE: the systems the attribution needs) with LM_SEEDS_LARGER.
#   6. generation speed (first scale, first seed), study.json, `morpheus lm report`.
# Writes $LM_OUT (default runs/lm): data/, morpheus/, tok/, ids/, systems/<name>/{system.json,
# gate.json,<scale>/seed-S/}, study.json, report.md, report.json and the figures.
# Resumable: every finished stage, tokenizer, ids file, gate and run is kept; an interrupted run
# continues from its checkpoint; everything starts over when the training or dev text, a config,
# the vocabulary size or LM_SET change. Runs go seed by seed over all systems, so a stopped study
# has paired seeds; each run's log is its train.log.
# Environment: LM_OUT, LM_SCALES ("small medium"), LM_SEEDS ("1 2 3"), LM_SEEDS_LARGER ("1 2 3"),
# LM_MERGE_SHARES ("0 20": the merge curve beside the shipped share, percent of the piece budget),
# LM_LARGER (the systems of the larger scales), LM_VOCAB (8192), LM_SHARE (0.05), LM_MIN_CHARS (300000), LM_SET (extra `--set` values for lm
# train, space-separated), LM_DEVICE (cpu), LM_JOBS (runs at a time, default 2), LM_SYSTEMS (the
# systems, default all), LM_MORPHEUS_CONFIG (configs/tiny.json), LM_MORPHEUS_SET (extra --set for
# its prepare and train), LM_PREPARE_ARGS (extra prepare arguments, e.g. --teacher for tests),
# LM_EXPORT_ARGS (skip the threshold choice: these export options), MORPHEUS (the front, default
# build/dev/tools/morpheus).
set -euo pipefail
cd "$(dirname "$0")/.."
R=${1:-runs/main}
OUT=${LM_OUT:-runs/lm}
SCALES=${LM_SCALES:-small medium}
SEEDS=${LM_SEEDS:-1 2 3}
SEEDS_LARGER=${LM_SEEDS_LARGER:-1 2 3}
V=${LM_VOCAB:-8192}
DEVICE=${LM_DEVICE:-cpu}
MCONFIG=${LM_MORPHEUS_CONFIG:-configs/tiny.json}
M=${MORPHEUS:-build/dev/tools/morpheus}
SPM=$(dirname "$M")/morpheus-spm
SHARED=${MORPHEUS_SHARED_DATA:-../shared/data}
CORPUS=$R/unsup/prepare/corpus.txt
DEV=$SHARED/corpus/dev_ud_sentences.txt
K=$((V / 1024))k
# The stream rows: Morpheus in the layout of format 3 (every space an id: the layout's own effect)
# and one row per whole-morpheme merge share of LM_MERGE_SHARES (percent of the piece budget).
MERGE_ROWS=""
for m in ${LM_MERGE_SHARES:-0 20}; do MERGE_ROWS+=" morpheus-merge$m-$K"; done
PRIMARY="morpheus-$K bpe-$K unigram-$K cbpe-$K spm-bpe-$K spm-unigram-$K"
ALL="$PRIMARY morpheus-spaces-$K$MERGE_ROWS chars hybrid-lossless hybrid"
LARGER=${LM_LARGER:-morpheus-$K bpe-$K spm-bpe-$K spm-unigram-$K}
SYSTEMS=${LM_SYSTEMS:-$ALL}
start=$(date +%s)
stage() { echo "== [$(($(date +%s) - start))s] $*"; }
fail() { echo "lm_study: $*" >&2; exit 1; }
for f in "$CORPUS" "$DEV" "$R/mc2010_tune.tsv" "$R/mc2010_annotations.tsv" "$MCONFIG" "$M"; do
  [ -e "$f" ] || fail "missing $f (run scripts/main.sh)"
done
for s in $SCALES; do [ -f "configs/lm_$s.json" ] || fail "no configs/lm_$s.json for scale $s"; done

sets=()
for s in ${LM_SET:-}; do sets+=(--set "$s"); done
msets=()
for s in ${LM_MORPHEUS_SET:-}; do msets+=(--set "$s"); done
stamp="$(cksum < "$CORPUS") $(cksum < "$DEV") $(cksum < "$MCONFIG") $V ${LM_SHARE:-} ${LM_SET:-}"
stamp+=" ${LM_MORPHEUS_SET:-} ${LM_PREPARE_ARGS:-} ${LM_EXPORT_ARGS:-}"
for s in $SCALES; do stamp+=" $s:$(cksum < "configs/lm_$s.json")"; done
if [ -d "$OUT" ] && [ "$(cat "$OUT/stamp.txt" 2>/dev/null)" != "$stamp" ]; then
  echo "lm_study: inputs changed, starting $OUT over"
  rm -rf "$OUT"
fi
mkdir -p "$OUT/data" "$OUT/tok" "$OUT/ids" "$OUT/systems" "$OUT/morpheus"
echo "$stamp" > "$OUT/stamp.txt"
D=$OUT/data
TRAIN=$D/train.txt VALID=$D/valid.txt OOD=$D/ood.txt

stage "data: in-distribution held-out lines, out-of-domain UD dev lines"
[ -f "$D/split.json" ] ||
  $M lm split --text "$CORPUS" --share "${LM_SHARE:-0.05}" --min-chars "${LM_MIN_CHARS:-300000}" \
    --train-out "$TRAIN" --valid-out "$VALID" --stats "$D/split.json"
[ -f "$D/ood_split.json" ] ||
  $M lm heldout --train "$CORPUS" --dev "$DEV" -o "$OOD" --stats "$D/ood_split.json"
for s in $SCALES; do
  $M lm info --config "configs/lm_$s.json" "${sets[@]}" --vocab-size "$V" > "$D/info-$s.json"
done

stage "morpheus: prepare (unsup, semi) and train (semi) on the training part"
P=$OUT/morpheus
for variant in unsup semi; do
  extra=()
  [ $variant = semi ] && extra=(--annotations "$R/mc2010_annotations.tsv")
  # shellcheck disable=SC2086
  $M prepare --out "$P/$variant/prepare" --corpus "$TRAIN" --config "$MCONFIG" "${msets[@]}" \
    --gold "$R/mc2010_tune.tsv" "${extra[@]}" ${LM_PREPARE_ARGS:-} > /dev/null
done
if [ ! -f "$P/semi/train/final/meta.json" ]; then
  resume=()
  [ -f "$P/semi/train/checkpoints/latest" ] && resume=(--resume)
  $M train --data "$P/semi/prepare" --config "$MCONFIG" "${msets[@]}" --out "$P/semi/train" \
    "${resume[@]}"
fi
TYPES=$P/types.tsv
# The training part's word types (Morfessor's counts; words.tsv when a teacher file replaced it).
if [ ! -f "$TYPES" ]; then
  if [ -f "$P/unsup/prepare/morfessor_counts.txt" ]; then
    sed -E 's/^([0-9]+) (.*)$/\2\t\1/' "$P/unsup/prepare/morfessor_counts.txt" > "$TYPES"
  else
    cp "$P/unsup/prepare/words.tsv" "$TYPES"
  fi
fi
if [ -n "${LM_EXPORT_ARGS:-}" ]; then
  mkdir -p "$P/semi/threshold"
  echo "$LM_EXPORT_ARGS" > "$P/semi/threshold/export_args.txt"
elif [ ! -f "$P/semi/threshold/export_args.txt" ]; then
  bash scripts/choose_threshold.sh "$P/semi/train/final" "$TYPES" "$TRAIN" "$P/semi/threshold"
fi
rm -rf "$P/semi/threshold"/tokenizer-*  # the candidates' directories (the scores are kept)

# system NAME: sets GROUP, KIND, TOK (what `lm vocab-size` reads), ENC, DEC (commands taking an
# input file and -o) and DESC, and builds the tokenizer when it is missing.
system() {
  local name=$1 t=$OUT/tok/$1
  TOK=$t
  case $name in
    morpheus-$K | morpheus-spaces-$K | morpheus-merge*-$K)
      GROUP=morpheus KIND=morpheus
      local stream=() layout="the shipped stream"
      case $name in
        morpheus-spaces-*) stream=(--no-word-initial) layout="every space an id" ;;
        morpheus-merge*)
          local share=${name#morpheus-merge}
          share=${share%-"$K"}
          stream=(--merge-share "$(awk "BEGIN { print $share / 100 }")") layout="merges up to $share % of the pieces" ;;
      esac
      [ "$name" = "morpheus-$K" ] || GROUP=layout
      DESC="Morpheus (the study's semi model, $(cat "$P/semi/threshold/export_args.txt"); $layout)"
      # shellcheck disable=SC2046
      MORPHEUS=$M bash scripts/export_tokenizer.sh "$P/semi/train/final" "$t" --vocab-size "$V" \
        --words "$TYPES" --text "$TRAIN" $(cat "$P/semi/threshold/export_args.txt") \
        "${stream[@]}" >&2
      ENC="$M encode --model $t" DEC="$M decode --model $t" ;;
    bpe-$K | unigram-$K)
      local seg=${name%-"$K"}
      GROUP=control KIND=morpheus
      DESC="plain $seg in Morpheus's pre-tokenizer, case layer and vocabulary distillation"
      if [ ! -f "$t/morpheus.json" ]; then
        local pieces=()
        if [ "$seg" = unigram ]; then
          $M export-plain --words "$TYPES" --runs-out "$OUT/tok/runs.tsv" >&2
          $SPM unigram-pieces --words "$OUT/tok/runs.tsv" --out "$OUT/tok/unigram-pieces.json" \
            --vocab-size "$((V - 263))" >&2
          pieces=(--pieces "$OUT/tok/unigram-pieces.json")
        fi
        $M export-plain --segmenter "$seg" "${pieces[@]}" --words "$TYPES" --text "$TRAIN" \
          --vocab-size "$V" --out "$t" >&2
      fi
      ENC="$M encode --model $t" DEC="$M decode --model $t" ;;
    cbpe-$K)
      # Its codec adds byte and case ids to the BPE tokens: trained again with the difference
      # until its ids number exactly V (or the run says how many).
      GROUP=control KIND=cbpe DESC="constrained BPE on the unsup teacher's boundaries"
      if [ ! -f "$t/cbpe.json" ]; then
        local n=$V
        for _ in 1 2 3 4; do
          $M cbpe train --corpus "$TRAIN" --boundaries "$P/unsup/prepare/teacher.tsv" \
            --vocab-size "$n" --out "$t" >&2
          local got
          got=$($M lm vocab-size --kind cbpe "$t")
          [ "$got" -eq "$V" ] && break
          n=$((n - got + V))
        done
      fi
      ENC="$M cbpe encode --model $t" DEC="$M cbpe decode --model $t" ;;
    spm-bpe-$K | spm-unigram-$K)
      local type=${name#spm-}
      type=${type%-"$K"}
      GROUP=off-the-shelf KIND=spm DESC="SentencePiece $type on the raw text (dummy prefix on)"
      [ -f "$t/spm.json" ] || $SPM train --corpus "$TRAIN" --type "$type" --vocab-size "$V" \
        --add-dummy-prefix --out "$t" >&2
      ENC="$SPM encode --model $t" DEC="$SPM decode --model $t" ;;
    hybrid-lossless | hybrid)
      GROUP=secondary KIND=$name TOK=$SHARED/hybrid
      local flag=""
      [ "$name" = hybrid ] && DESC="hybrid tokenizer, reference mode" ||
        { flag=--lossless DESC="hybrid tokenizer, lossless mode (its lexicon's vocabulary)"; }
      ENC="$M hybrid encode --lexicon $TOK $flag" DEC="$M hybrid decode --lexicon $TOK $flag" ;;
    chars)
      GROUP=secondary KIND=chars TOK=$t.json DESC="code points of the training text + byte fallback"
      [ -f "$TOK" ] || $M lm chars train --corpus "$TRAIN" --out "$TOK" >&2
      ENC="$M lm chars encode --model $TOK" DEC="$M lm chars decode --model $TOK" ;;
    *) fail "unknown system $name (systems: $ALL)" ;;
  esac
}

# prepare NAME ORDER: ids of the three texts, their decodes, the gate and system.json.
prepare() {
  local name=$1 order=$2 dir=$OUT/systems/$1 ids=$OUT/ids/$1
  system "$name"
  mkdir -p "$dir"
  [ -f "$dir/system.json" ] && [ -f "$dir/gate.json" ] && return
  local vocab
  vocab=$($M lm vocab-size --kind "$KIND" "$TOK")
  for part in train valid ood; do
    local text=$TRAIN
    [ $part = valid ] && text=$VALID
    [ $part = ood ] && text=$OOD
    [ -f "$ids.$part.ids" ] || $ENC "$text" -o "$ids.$part.ids" ||
      { echo "lm_study: $name: encode failed" >&2; : > "$ids.$part.ids"; }
    [ -f "$ids.$part.decoded" ] || $DEC "$ids.$part.ids" -o "$ids.$part.decoded" ||
      { echo "lm_study: $name: decode failed" >&2; : > "$ids.$part.decoded"; }
  done
  cat "$TRAIN" "$VALID" "$OOD" > "$ids.text.tmp"
  cat "$ids.train.ids" "$ids.valid.ids" "$ids.ood.ids" > "$ids.ids.tmp"
  cat "$ids.train.decoded" "$ids.valid.decoded" "$ids.ood.decoded" > "$ids.decoded.tmp"
  $M lm check --text "$ids.text.tmp" --ids "$ids.ids.tmp" --decoded "$ids.decoded.tmp" \
    --vocab-size "$vocab" -o "$dir/gate.json"
  rm -f "$ids".*.tmp
  python3 - "$dir/system.json" "$name" "$GROUP" "$vocab" "$DESC" "$order" <<'PY'
import json, sys
path, name, group, vocab, desc, order = sys.argv[1:]
json.dump({"name": name, "group": group, "vocab_size": int(vocab), "tokenizer": desc,
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

# run NAME SCALE SEED: one training run (continued from its checkpoint when it has one), then
# the out-of-domain evaluation of its final model; its log in train.log.
run() {
  local name=$1 scale=$2 seed=$3 dir=$OUT/systems/$1 r=$OUT/systems/$1/$2/seed-$3
  mkdir -p "$r"
  if [ ! -f "$r/result.json" ]; then
    # Wall, user and system seconds of this (part of the) run, one line per start: with one
    # intra-op thread a run's CPU seconds are its wall time on an otherwise idle core.
    local TIMEFORMAT='%R %U %S'
    { time $M lm train --train "$OUT/ids/$name.train.ids" --valid "$OUT/ids/$name.valid.ids" \
      --valid-text "$VALID" --vocab-size "$(field "$dir/system.json" vocab_size)" \
      --config "configs/lm_$scale.json" "${sets[@]}" --set lm.seed="$seed" --out "$r" \
      --device "$DEVICE" --resume >> "$r/train.log" 2>&1; } 2>> "$r/times.txt"
  fi
  $M lm eval --checkpoint "$r/final.pt" --ids "$OUT/ids/$name.ood.ids" --text "$OOD" \
    --device "$DEVICE" -o "$r/eval_ood.json" >> "$r/train.log" 2>&1
}

# Scale by scale, seed by seed over the systems that passed the gate, LM_JOBS runs at a time
# (default 2: one per core of the 2-core machine, each on one intra-op thread, as the configs set).
JOBS=${LM_JOBS:-2}
expected=()
first_scale=${SCALES%% *}
for scale in $SCALES; do
  seeds=$SEEDS
  [ "$scale" = "$first_scale" ] || seeds=$SEEDS_LARGER
  for seed in $seeds; do
    for name in $SYSTEMS; do
      if [ "$scale" != "$first_scale" ]; then
        case " $LARGER " in *" $name "*) ;; *) continue ;; esac
      fi
      reversible "$OUT/systems/$name/gate.json" || continue
      r=$OUT/systems/$name/$scale/seed-$seed
      expected+=("$r")
      [ -f "$r/eval_ood.json" ] && continue
      while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done
      stage "lm train: $name, $scale, seed $seed"
      run "$name" "$scale" "$seed" &
    done
  done
done
wait
for r in "${expected[@]}"; do
  [ -f "$r/eval_ood.json" ] || fail "$r did not finish: see $r/train.log (rerun to resume)"
done

# Generation speed of the first scale's first seed, one measurement at a time (nothing else
# running).
GEN_TOKENS=$(python3 -c 'import json,sys; print(min(255, json.load(open(sys.argv[1]))["context"] - 1))' "$D/info-$first_scale.json")
first_seed=${SEEDS%% *}
for name in $SYSTEMS; do
  r=$OUT/systems/$name/$first_scale/seed-$first_seed
  [ -f "$r/final.pt" ] || continue
  for b in 1 32; do
    [ -f "$r/generate-b$b.json" ] || $M lm generate --checkpoint "$r/final.pt" \
      --tokens "$GEN_TOKENS" --batch $b --device "$DEVICE" -o "$r/generated-b$b.ids" \
      --stats "$r/generate-b$b.json"
  done
done

stage "report"
python3 studies/lm_study_json.py "$OUT" "$CORPUS" "$DEV" "$SCALES" "$SEEDS" "$SEEDS_LARGER" \
  "morpheus-$K" "$DEVICE" "$JOBS" "$(($(date +%s) - start))"
$M lm report --study "$OUT"
stage "done: $OUT/report.md"
cat "$OUT/report.md"
