#!/usr/bin/env bash
# Exports a checkpoint into a tokenizer directory unless that directory was exported from the very
# same checkpoint (the model.pt checksum of CHECKPOINT/meta.json, which export records in
# TOKDIR/morpheus.json) with the same options by the same build of morpheus-torch (both kept in
# TOKDIR/export_options.txt). So a retrained model or a changed exporter is never scored through a
# stale tokenizer, and an unchanged one is not exported twice. A directory of an older export, whose
# config is named tokenizer.json, is exported again (the evaluation names TOKDIR/morpheus.json).
# Usage: scripts/export_tokenizer.sh CHECKPOINT TOKDIR [morpheus export options…]
set -euo pipefail
cd "$(dirname "$0")/.."
checkpoint=$1
tokdir=$2
shift 2
M=${MORPHEUS:-build/dev/tools/morpheus}  # the front; tests point it at their build
field() {  # field FILE KEY: a top-level string of a JSON file, empty when absent
  python3 -c 'import json, sys
try:
    print(json.load(open(sys.argv[1])).get(sys.argv[2], ""))
except (OSError, ValueError):
    print("")' "$1" "$2"
}
want=$(field "$checkpoint/meta.json" model_pt_fnv1a64)
have=$(field "$tokdir/morpheus.json" source_checkpoint_model_pt_fnv1a64)
torch_bin="$(dirname "$(command -v "$M")")/morpheus-torch"
options="$* (morpheus-torch cksum $(cksum < "$torch_bin" | cut -d' ' -f1))"
if [ -n "$want" ] && [ "$want" = "$have" ] &&
   [ "$options" = "$(cat "$tokdir/export_options.txt" 2>/dev/null)" ]; then
  echo "export: $tokdir is current (checkpoint model.pt $want, options: $options)"
  exit 0
fi
$M export --checkpoint "$checkpoint" --out "$tokdir" "$@"
echo "$options" > "$tokdir/export_options.txt"
