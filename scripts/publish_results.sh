#!/usr/bin/env bash
# Publishes the main job's headline comparison in docs/results.md: the block between the lines
# "<!-- report:begin -->" and "<!-- report:end -->" is replaced by the table that
# scripts/results_table.py makes of RUN_DIR/eval/report.json (segmentation F1 seen / unseen,
# round trip, MAP), stamped once with the report's date and the run's commit (the git_describe of
# RUN_DIR/tokenizer/morpheus.json's provenance, else this checkout's). Every other table stays in
# RUN_DIR/eval/report.md. docs/results.md is written atomically.
# Usage: scripts/publish_results.sh RUN_DIR   (e.g. runs/main, after bash scripts/main.sh)
set -euo pipefail
if [ $# -ne 1 ]; then
  echo "usage: scripts/publish_results.sh RUN_DIR" >&2
  exit 2
fi
shown=${1%/}/eval/report.json
if [ ! -f "$shown" ]; then
  echo "error: $shown not found" >&2
  echo "hint: run bash scripts/main.sh first; it writes runs/main/eval/report.json" >&2
  exit 1
fi
report=$(realpath "$shown")
run=$(realpath "${1%/}")
cd "$(dirname "$0")/.."
doc=${RESULTS_DOC:-docs/results.md}  # RESULTS_DOC: another file (tests)
begin='<!-- report:begin -->'
end='<!-- report:end -->'
if [ "$(grep -cxF "$begin" "$doc")" != 1 ] || [ "$(grep -cxF "$end" "$doc")" != 1 ] ||
  [ "$(grep -nxF "$begin" "$doc" | cut -d: -f1)" -ge "$(grep -nxF "$end" "$doc" | cut -d: -f1)" ]; then
  echo "error: $doc must hold one line '$begin' followed by one line '$end'" >&2
  echo "hint: restore the markers around the comparison block" >&2
  exit 1
fi
# The run's commit: what its tokenizer's provenance records, else this checkout's.
commit=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["provenance"]["git_describe"])' \
  "$run/tokenizer/morpheus.json" 2> /dev/null) || commit=$(git describe --always --dirty)
stamp="Measured $(date -r "$report" +%F) at commit $commit (\`bash scripts/main.sh\`, $shown)."

tmp=$(mktemp "$doc.tmp.XXXXXX")
block=$(mktemp)
trap 'rm -f "$tmp" "$block"' EXIT
python3 scripts/results_table.py "$report" > "$block"
printf '\n%s\n' "$stamp" >> "$block"
awk -v begin="$begin" -v end="$end" -v block="$block" '
  $0 == begin {
    print
    while ((getline line < block) > 0) print line
    close(block)
    skipping = 1
    next
  }
  $0 == end { skipping = 0 }
  !skipping { print }
' "$doc" > "$tmp"
chmod --reference="$doc" "$tmp"
mv "$tmp" "$doc"
rm -f "$block"
trap - EXIT
echo "published $shown into $doc: $stamp"
