#!/usr/bin/env bash
# Segments (encodes) a big corpus in N shards run in parallel, each with its own segmentation
# cache, then merges the caches and joins the shard outputs in input order. On many machines run
# step 1 of shard i on machine i (same TOKDIR, same INPUT), copy the cache.i files back and run
# the rest here. The merged cache serves later runs (--cache-file OUT/merged.cache: no model call
# for a letter run the shards segmented); with CHECKPOINT and WORDS set, the tokenizer is also
# re-exported with the new words in its segment table (OUT/tokenizer).
# Usage: scripts/segment_sharded.sh TOKDIR INPUT OUT [N=2] [encode|segment] [options of that command]
#   env: MORPHEUS (default build/dev/tools/morpheus); CHECKPOINT + WORDS (+ EXPORT_OPTIONS, e.g.
#   "--threshold 0.42", the original export's) for the optional re-export
# Writes OUT/part.i + OUT/cache.i per shard, OUT/merged.cache, OUT/output (= one unsharded run's).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 3 ] || { echo "usage: $0 TOKDIR INPUT OUT [N] [encode|segment] [options]" >&2; exit 2; }
tokdir=$1 input=$2 out=$3
n=${4:-2}
mode=${5:-encode}
shift $(( $# < 5 ? $# : 5 ))
M=${MORPHEUS:-build/dev/tools/morpheus}
mkdir -p "$out"

# 1. Shards in parallel: shard i takes input lines k with (k - 1) mod n == i.
pids=()
for ((i = 0; i < n; i++)); do
  "$M" -q "$mode" --model "$tokdir" --shard "$i/$n" --cache-file "$out/cache.$i" \
    -o "$out/part.$i" "$@" "$input" &
  pids+=($!)
done
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
[ "$failed" = 0 ] || { echo "segment_sharded: a shard failed (see above)" >&2; exit 1; }

# 2. One cache of every shard's model segmentations.
caches=()
for ((i = 0; i < n; i++)); do caches+=("$out/cache.$i"); done
"$M" cache merge --model "$tokdir" -o "$out/merged.cache" "${caches[@]}"

# 3. Outputs in input order: line k comes from part (k - 1) mod n.
awk -v n="$n" -v dir="$out" 'BEGIN {
  for (k = 0; ; k++) {
    if ((getline line < (dir "/part." (k % n))) <= 0) break
    print line
  }
}' > "$out/output.tmp.$$"
mv "$out/output.tmp.$$" "$out/output"

# 4. Optional re-export: the new words join the segment table.
if [ -n "${CHECKPOINT:-}" ] && [ -n "${WORDS:-}" ]; then
  { cat "$WORDS"; "$M" cache dump "$out/merged.cache" | cut -f1 | sed 's/$/\t1/'; } \
    > "$out/words.tsv"
  # shellcheck disable=SC2086  # EXPORT_OPTIONS holds several options
  "$M" export --checkpoint "$CHECKPOINT" --words "$out/words.tsv" --out "$out/tokenizer" \
    ${EXPORT_OPTIONS:-}
fi
echo "segment_sharded: $n shards of $input -> $out/output, cache $out/merged.cache"
