#!/usr/bin/env bash
# segment_cache.sh MORPHEUS PREPARE_DIR CONFIG INPUT
# The persistent segmentation cache and the sharded recipe end to end, on a tiny model trained
# for 2 steps whose segment table holds only the tiny corpus's words (most letter runs of
# INPUT miss it): scripts/segment_sharded.sh with 2 shards in parallel (a cache each, merged)
# gives the output and the merged cache of one unsharded run; a second run with the merged cache
# needs no model (model/ removed); what the model segmented for runs missing from the table is
# the model's own segmentation (the table of a tokenizer exported with those runs); a bit-flipped
# cache fails clearly, a truncated one loses its torn last record only (same output), a cache of
# another tokenizer is refused. A missing INPUT skips (exit 77), or fails when CI=true (lib.sh).
set -u
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"
fail() { echo "FAIL: $*"; exit 1; }
[ $# = 4 ] || fail "usage: segment_cache.sh MORPHEUS PREPARE_DIR CONFIG INPUT"
m=$1 prep=$2 config=$3
require_file "$4"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
head -1500 "$4" > "$dir/input"
"$m" prepare --corpus "$prep/corpus.txt" --teacher "$prep/teacher.tsv" --out "$dir/data" \
  --set prepare.root_lexicon="$prep/roots.txt" --set prepare.suffix_lexicon="$prep/suffixes.txt" \
  --set prepare.word_min_count=1 --set prepare.root_min_count=1 > /dev/null || fail prepare
"$m" train --data "$dir/data" --config "$config" --out "$dir/run" --device cpu \
  --set train.max_steps=2 --set train.threads=1 > /dev/null || fail train
"$m" export --checkpoint "$dir/run/final" --data "$dir/data" --out "$dir/tok" --vocab-size 2000 \
  --min-count 1 2> /dev/null || fail export

# One unsharded run with a cache, then the sharded recipe.
"$m" -q encode --model "$dir/tok" --cache-file "$dir/one.cache" "$dir/input" -o "$dir/one.ids" \
  || fail "unsharded encode"
"$m" cache merge --model "$dir/tok" -o "$dir/one.merged" "$dir/one.cache" 2> /dev/null \
  || fail "merge of one cache"
MORPHEUS=$m bash "$morpheus_repo_dir/scripts/segment_sharded.sh" "$dir/tok" "$dir/input" \
  "$dir/sh" 2 > /dev/null 2>&1 || fail "segment_sharded.sh"
cmp "$dir/one.ids" "$dir/sh/output" || fail "2 shards joined differ from one unsharded run"
cmp "$dir/one.merged" "$dir/sh/merged.cache" || fail "merged shard caches differ from one run's"
[ "$("$m" cache dump "$dir/one.merged" | wc -l)" -gt 100 ] || fail "too few cached runs"

# The merged cache answers every miss: a copy of the tokenizer without its model encodes the same.
cp -r "$dir/tok" "$dir/tok_nomodel" && rm -rf "$dir/tok_nomodel/model"
cp "$dir/sh/merged.cache" "$dir/reuse.cache"
"$m" -q encode --model "$dir/tok_nomodel" --cache-file "$dir/reuse.cache" "$dir/input" \
  -o "$dir/again.ids" || fail "encode from the cache alone"
cmp "$dir/one.ids" "$dir/again.ids" || fail "cached run differs"

# Runs missing from the table are segmented as the model segments them itself: a tokenizer
# exported with those runs holds the model's segmentation in its table.
"$m" cache dump "$dir/one.merged" | head -300 > "$dir/cached.tsv"
cut -f1 "$dir/cached.tsv" | sed 's/$/\t1/' > "$dir/words.tsv"
"$m" export --checkpoint "$dir/run/final" --words "$dir/words.tsv" --out "$dir/tok_all" \
  --vocab-size 2000 --min-count 1 2> /dev/null || fail "export of the cached runs"
"$m" -q segment --model "$dir/tok_all" --cache-file "$dir/all.cache" - \
  < <(cut -f1 "$dir/cached.tsv") > "$dir/table.tsv" || fail "segment with the table"
[ "$("$m" cache dump "$dir/all.cache" | wc -l)" = 0 ] || fail "table runs went to the model"
cmp "$dir/cached.tsv" "$dir/table.tsv" || fail "cached segmentation differs from the model's own"

# Damage: a flipped bit is an error naming the cache; a torn last record is dropped (same ids).
python3 - "$dir/one.cache" "$dir/flip.cache" "$dir/torn.cache" <<'EOF'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
torn = bytes(data[:-3])
data[32 + 12 + 2] ^= 0x10
open(sys.argv[2], "wb").write(bytes(data))
open(sys.argv[3], "wb").write(torn)
EOF
"$m" -q encode --model "$dir/tok" --cache-file "$dir/flip.cache" "$dir/input" > /dev/null \
  2> "$dir/err"
[ $? = 1 ] || fail "a bit-flipped cache must exit 1"
grep -q "flip.cache: record at byte 32 fails its checksum" "$dir/err" \
  || { cat "$dir/err"; fail "flip message"; }
"$m" encode --model "$dir/tok" --cache-file "$dir/torn.cache" "$dir/input" -o "$dir/torn.ids" \
  2> "$dir/err" || fail "a torn cache must still encode"
grep -q "dropped a last record cut short" "$dir/err" || { cat "$dir/err"; fail "torn warning"; }
cmp "$dir/one.ids" "$dir/torn.ids" || fail "torn cache changed the output"
"$m" -q encode --model "$dir/tok_all" --cache-file "$dir/one.cache" "$dir/input" > /dev/null \
  2> "$dir/err"
[ $? = 1 ] || fail "a cache of another tokenizer must exit 1"
grep -q "another tokenizer" "$dir/err" || { cat "$dir/err"; fail "other tokenizer message"; }
echo "ok"
