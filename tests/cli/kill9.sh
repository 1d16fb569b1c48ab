#!/usr/bin/env bash
# kill9.sh MORPHEUS PREPARE_DIR CONFIG [DELAYS...]
# SIGKILLs `morpheus prepare`, `morpheus train` and `morpheus export` at several points (default
# delays 0.05 1 3 6 s after the start), reruns each stage, and checks the rerun succeeds and
#   * prepare: its outputs equal those of an uninterrupted run byte for byte (caches, vocabs,
#     words, roots, teacher);
#   * train --resume: finishes, final/ loads (export from it works), and no checkpoint named in
#     checkpoints/latest is half written;
#   * export: the tokenizer directory equals an uninterrupted export (every file byte for byte),
#     and right after the kill, encode on whatever is at --out either works or fails cleanly
#     (exit 1), never crashes;
#   * no temp file or directory of a killed run survives its rerun.
# The corpus is tests/data/prepare/corpus.txt repeated (so that prepare takes long enough to be
# killed mid-way). Label: slow (about a minute).
set -u
m=$1 prep=$2 config=$3; shift 3
delays=("$@"); [ ${#delays[@]} -gt 0 ] || delays=(0.05 1 3 6)
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
for _ in $(seq 3000); do cat "$prep/corpus.txt"; done > "$dir/corpus.txt"
prep_args=(--corpus "$dir/corpus.txt" --teacher "$prep/teacher.tsv"
  --set prepare.root_lexicon="$prep/roots.txt" --set prepare.suffix_lexicon="$prep/suffixes.txt"
  --set prepare.word_min_count=1 --set prepare.root_min_count=1)
train_args=(--config "$config" --device cpu --set train.max_steps=6 --set train.threads=1
  --set train.checkpoint_every=2)
export_args=(--vocab-size 2000 --min-count 1)

# run_killed DELAY CMD...: starts CMD, SIGKILLs it after DELAY s (if still running).
# Prints "killed" or "finished".
run_killed() {
  local delay=$1; shift
  "$@" > /dev/null 2>&1 &
  local pid=$!
  sleep "$delay"
  if kill -0 $pid 2> /dev/null; then
    kill -9 $pid; wait $pid 2> /dev/null; echo killed
  else
    wait $pid; echo finished
  fi
}
same_files() {  # same_files REF DIR FILE...
  local ref=$1 got=$2; shift 2
  for f in "$@"; do cmp -s "$ref/$f" "$got/$f" || return 1; done
}

# ---- uninterrupted reference runs
"$m" -q prepare "${prep_args[@]}" --out "$dir/data_ref" > /dev/null || fail "reference prepare"
"$m" -q train --data "$dir/data_ref" "${train_args[@]}" --out "$dir/run_ref" > /dev/null ||
  fail "reference train"
"$m" -q export --checkpoint "$dir/run_ref/final" --data "$dir/data_ref" --out "$dir/tok_ref" \
  "${export_args[@]}" > /dev/null || fail "reference export"
prep_files=(teacher.tsv char_vocab.json words.tsv roots.tsv train.cache dev.cache)
tok_files=$(cd "$dir/tok_ref" && find . -type f | sort)

for d in "${delays[@]}"; do
  # ---- prepare
  out=$dir/data_$d
  r=$(run_killed "$d" "$m" -q prepare "${prep_args[@]}" --out "$out")
  "$m" -q prepare "${prep_args[@]}" --out "$out" > /dev/null 2>&1 ||
    fail "prepare rerun after kill at ${d}s ($r)"
  same_files "$dir/data_ref" "$out" "${prep_files[@]}" ||
    fail "prepare rerun after kill at ${d}s ($r) differs from the uninterrupted run"
  echo "prepare: kill at ${d}s ($r) -> rerun ok, outputs identical"

  # ---- train (killed, then --resume)
  run=$dir/run_$d
  r=$(run_killed "$d" "$m" -q train --data "$dir/data_ref" "${train_args[@]}" --out "$run")
  # --resume needs a checkpoint (without one it is a clear error: "start without --resume").
  resume=(); [ -f "$run/checkpoints/latest" ] && resume=(--resume)
  "$m" -q train --data "$dir/data_ref" "${train_args[@]}" --out "$run" "${resume[@]}" \
    > "$dir/train.log" 2>&1 || { cat "$dir/train.log"; fail "train rerun after kill at ${d}s ($r)"; }
  [ -f "$run/final/config.json" ] || fail "train after kill at ${d}s: no final/config.json"
  "$m" -q export --checkpoint "$run/final" --data "$dir/data_ref" --out "$run/tok" \
    "${export_args[@]}" > /dev/null 2>&1 || fail "export of the resumed run (kill at ${d}s)"
  echo "train: kill at ${d}s ($r) -> ${resume[*]:-fresh} rerun ok, final/ exports"

  # ---- export
  tok=$dir/tok_$d
  r=$(run_killed "$d" "$m" -q export --checkpoint "$dir/run_ref/final" --data "$dir/data_ref" \
        --out "$tok" "${export_args[@]}")
  if [ -e "$tok" ]; then
    printf 'Evlerde kitaplar\n' > "$dir/probe.txt"
    "$m" -q encode --model "$tok" "$dir/probe.txt" > /dev/null 2> "$dir/probe.err"
    code=$?
    [ $code = 0 ] || [ $code = 1 ] || fail "encode on a killed export crashed (exit $code)"
  fi
  "$m" -q export --checkpoint "$dir/run_ref/final" --data "$dir/data_ref" --out "$tok" \
    "${export_args[@]}" > /dev/null 2>&1 || fail "export rerun after kill at ${d}s ($r)"
  [ "$(cd "$tok" && find . -type f | sort)" = "$tok_files" ] ||
    fail "export rerun after kill at ${d}s: file list differs"
  for f in $tok_files; do  # meta.json differs only in its "created" time stamp
    cmp -s <(grep -av '"created"' "$dir/tok_ref/$f") <(grep -av '"created"' "$tok/$f") ||
      fail "export rerun after kill at ${d}s: $f differs"
  done
  echo "export: kill at ${d}s ($r) -> rerun ok, tokenizer identical"
done
# Each rerun removes what its killed predecessor left (temp names carry the writer's pid).
leftovers=$(find "$dir" -name '*.tmp*' | head -5)
[ -z "$leftovers" ] || fail "temp files of killed runs survived the reruns: $leftovers"
echo ok
