#!/usr/bin/env bash
# lm_study.sh MORPHEUS PREPARE_DIR CONFIG
# Runs studies/lm_study.sh end to end on a stand-in for the main job's artifacts: the first 600
# lines of the npm corpus as the training text (10 % held out), the study's own Morpheus model
# (prepare with a given teacher, 2 training steps, threshold 0.5), tokenizers at 1,024 ids, a
# one-layer 16-wide GPT for 3 steps at two scales (seeds 1 2, then 1; the second scale runs the
# default LM_LARGER systems only). Checks: the held-out split is disjoint from the training part
# and the tokenizers saw only the training part; every tokenizer of one vocabulary has exactly
# 1,024 ids; the case-matched controls use Morpheus's case ids; the reversible systems have their
# runs with the out-of-domain slices at each of their scales; the hybrid reference mode fails the
# gate and is listed excluded; the report has both scales
# and its figure; a second invocation reuses everything (no new run).
set -u
. "$(dirname "$0")/lib.sh"
fail() { echo "FAIL: $*"; exit 1; }
m=$1 prep=$2 config=$3
repo=$(cd "$(dirname "$0")/../.." && pwd)
shared=$(shared_data_dir)
require_file "$shared/corpus/dev_ud_sentences.txt" "$shared/hybrid/kokler.json" \
  "$shared/gold/mc2010_tur_trainset.tsv" "$repo/node_modules/nlptoolkit-corpus/corpus.txt"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
r=$dir/main
mkdir -p "$r/unsup/prepare"
head -n 600 "$repo/node_modules/nlptoolkit-corpus/corpus.txt" > "$r/unsup/prepare/corpus.txt"
head -n 40 "$shared/gold/mc2010_tur_trainset.tsv" > "$r/mc2010_tune.tsv"
head -n 20 "$r/mc2010_tune.tsv" > "$r/mc2010_annotations.tsv"
run_study() {
  (cd "$repo" && MORPHEUS="$m" MORPHEUS_SHARED_DATA="$shared" LM_OUT="$dir/lm" LM_SEEDS="1 2" \
    LM_SEEDS_LARGER=1 LM_VOCAB=1024 LM_SHARE=0.1 LM_MIN_CHARS=1000 LM_MORPHEUS_CONFIG="$config" \
    LM_MORPHEUS_SET="train.max_steps=2 train.threads=1" LM_EXPORT_ARGS="--threshold 0.5" \
    LM_PREPARE_ARGS="--teacher $prep/teacher.tsv --set prepare.root_lexicon=$prep/roots.txt
    --set prepare.suffix_lexicon=$prep/suffixes.txt --set prepare.word_min_count=1
    --set prepare.root_min_count=1" \
    LM_SET="lm.layers=1 lm.heads=2 lm.d_model=16 lm.equalize_vocab=1024
    lm.context=16 lm.batch_size=2 lm.steps=3 lm.warmup_steps=1 lm.eval_every=2
    lm.checkpoint_every=2 lm.log_every=1 lm.threads=1" \
    bash studies/lm_study.sh "$r") > "$dir/log$1" 2>&1 || { cat "$dir/log$1"; fail "study $1"; }
}
run_study 1
lm=$dir/lm
# The held-out lines are not in the training part, and nothing learned from them.
[ -s "$lm/data/valid.txt" ] || fail "no validation text"
if grep -Fxq -f "$lm/data/valid.txt" "$lm/data/train.txt"; then fail "a validation line is in the training part"; fi
[ "$(cat "$lm/data/train.txt" "$lm/data/valid.txt" | sort | cksum)" = \
  "$(sort "$r/unsup/prepare/corpus.txt" | cksum)" ] || fail "the split lost or added lines"
for f in "$lm/morpheus/semi/prepare/corpus.txt" "$lm/morpheus/unsup/prepare/corpus.txt"; do
  if grep -Fxq -f "$lm/data/valid.txt" "$f"; then fail "$f holds a validation line"; fi
done
for s in morpheus-1k bpe-1k unigram-1k cbpe-1k spm-bpe-1k spm-unigram-1k; do
  [ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["vocab_size"])' \
    "$lm/systems/$s/system.json")" = 1024 ] || fail "$s does not have 1024 ids"
done
for s in bpe-1k unigram-1k; do
  ids=$(echo "Kitap KİTAP" | "$m" encode --model "$lm/tok/$s")
  case " $ids " in *" 256 "*) ;; *) fail "$s: no <cap> id 256 in \"$ids\"" ;; esac
  grep -q '"name": "'"${s%-1k}"'"' "$lm/tok/$s/morpheus.json" || fail "$s: not its own segmenter"
done
for s in morpheus-1k bpe-1k unigram-1k cbpe-1k spm-bpe-1k spm-unigram-1k; do
  runs="small/seed-1 small/seed-2"
  case $s in  # the larger scale: Morpheus, its BPE control, both SentencePiece models (LM_LARGER)
    morpheus-1k | bpe-1k | spm-bpe-1k | spm-unigram-1k) runs="$runs medium/seed-1" ;;
    *) [ -d "$lm/systems/$s/medium" ] && fail "$s ran at the second scale (not in LM_LARGER)" ;;
  esac
  for run in $runs; do
    [ -f "$lm/systems/$s/$run/result.json" ] || fail "no result for $s $run"
    grep -q '"all_upper"' "$lm/systems/$s/$run/eval_ood.json" || fail "no OOD slices for $s $run"
  done
  grep -q "| $s |" "$lm/report.md" || fail "no row for $s"
done
# The stream rows: the layout of format 3 (every space an id) and the merge shares.
for s in morpheus-spaces-1k morpheus-merge0-1k morpheus-merge20-1k; do
  [ -f "$lm/systems/$s/small/seed-2/result.json" ] || fail "no result for $s"
  [ -d "$lm/systems/$s/medium" ] && fail "$s ran at the second scale"
  grep -q "| $s |" "$lm/report.md" || fail "no row for $s"
done
python3 - "$lm/tok" <<'PY' || fail "the stream rows' layouts"
import json, sys
tok = sys.argv[1]
def stream(name):
    return json.load(open(f"{tok}/{name}/morpheus.json"))["stream"]
assert stream("morpheus-1k")["word_initial"] and stream("bpe-1k")["word_initial"]
assert not stream("morpheus-spaces-1k")["word_initial"]
assert stream("morpheus-merge20-1k")["merge_share"] == 0.2
assert stream("morpheus-merge20-1k")["merge_pieces"]
assert stream("morpheus-merge0-1k")["merge_share"] == 0
assert not stream("morpheus-merge0-1k")["merge_pieces"]
PY
for s in hybrid-lossless chars; do
  [ -f "$lm/systems/$s/small/seed-2/result.json" ] || fail "no result for $s"
  [ -d "$lm/systems/$s/medium" ] && fail "$s ran at the second scale"
done
[ -f "$lm/systems/chars/small/seed-1/generate-b32.json" ] || fail "no generation measurement"
grep -q '"reversible": false' "$lm/systems/hybrid/gate.json" || fail "hybrid passed the gate"
grep -q "hybrid (.*): not reversible" "$lm/report.md" || fail "hybrid not listed excluded"
grep -q "medium" "$lm/report.md" || fail "no second scale in the report"
[ -f "$lm/bpc_vs_step.png" ] || fail "no figure"
[ -f "$lm/report.json" ] || fail "no report.json"
run_study 2
grep -q "lm train:" "$dir/log2" && fail "the second invocation trained again"
echo ok
