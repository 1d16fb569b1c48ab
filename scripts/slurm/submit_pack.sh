#!/usr/bin/env bash
# submit_pack.sh N OUT [morpheus pack options] INPUT...
# Submits the pack of a corpus as N shards (an array job of pack_shard.sbatch, one task per
# shard) and their merge into OUT (pack_merge.sbatch, after every shard succeeded). Prints the two
# job ids ("ARRAY_ID MERGE_ID"). Extra sbatch options of both jobs: $SBATCH_PACK_ARGS (e.g.
# "--partition=cpu --cpus-per-task=16 --time=04:00:00") and $SBATCH_MERGE_ARGS. Paths must be on a
# file system every node sees.
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: submit_pack.sh N OUT [pack options] INPUT..." >&2; exit 2; }
n=$1 out=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$(dirname "$out")"
# shellcheck disable=SC2086
array=$(sbatch --parsable --array="0-$((n - 1))" --output="$out.shard-%a-of-$n.log" \
  ${SBATCH_PACK_ARGS:-} "$here/pack_shard.sbatch" "$out" "$@")
array=${array%%;*}
# shellcheck disable=SC2086
merge=$(sbatch --parsable --dependency="afterok:$array" --kill-on-invalid-dep=yes \
  --output="$out.merge.log" ${SBATCH_MERGE_ARGS:-} "$here/pack_merge.sbatch" "$out" "$n")
echo "${array} ${merge%%;*}"
