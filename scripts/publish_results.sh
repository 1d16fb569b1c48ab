#!/usr/bin/env bash
# Publishes the main job's report in docs/results.md: the block between the lines
# "<!-- report:begin -->" and "<!-- report:end -->" is replaced by RUN_DIR/eval/report.md,
# stamped once with the report's date and this checkout's commit (git describe --always --dirty).
# The report is copied as it is, except that its headings move two levels down (so they nest
# under the section holding the block) and its image lines are left out (the PNG figures stay in
# RUN_DIR/eval/figures/, outside the repository). docs/results.md is written atomically.
# Usage: scripts/publish_results.sh RUN_DIR   (e.g. runs/main, after bash scripts/main.sh)
set -euo pipefail
if [ $# -ne 1 ]; then
  echo "usage: scripts/publish_results.sh RUN_DIR" >&2
  exit 2
fi
shown=${1%/}/eval/report.md
if [ ! -f "$shown" ]; then
  echo "error: $shown not found" >&2
  echo "hint: run bash scripts/main.sh first; it writes runs/main/eval/report.md" >&2
  exit 1
fi
report=$(realpath "$shown")
cd "$(dirname "$0")/.."
doc=docs/results.md
begin='<!-- report:begin -->'
end='<!-- report:end -->'
if [ "$(grep -cxF "$begin" "$doc")" != 1 ] || [ "$(grep -cxF "$end" "$doc")" != 1 ] ||
  [ "$(grep -nxF "$begin" "$doc" | cut -d: -f1)" -ge "$(grep -nxF "$end" "$doc" | cut -d: -f1)" ]; then
  echo "error: $doc must hold one line '$begin' followed by one line '$end'" >&2
  echo "hint: restore the markers around the comparison block" >&2
  exit 1
fi
stamp="Measured $(date -r "$report" +%F) at commit $(git describe --always --dirty) ($shown)."

tmp=$(mktemp "$doc.tmp.XXXXXX")
trap 'rm -f "$tmp"' EXIT
awk -v begin="$begin" -v end="$end" -v stamp="$stamp" -v report="$report" '
  $0 == begin {
    print
    print stamp
    print ""
    blank = 1
    while ((getline line < report) > 0) {
      if (line ~ /^!\[.*\]\(.*\)$/) continue
      if (line ~ /^#/) line = "##" line
      if (line == "") { if (blank) continue; blank = 1 } else blank = 0
      print line
    }
    close(report)
    skipping = 1
    next
  }
  $0 == end { skipping = 0 }
  !skipping { print }
' "$doc" > "$tmp"
chmod --reference="$doc" "$tmp"
mv "$tmp" "$doc"
trap - EXIT
echo "published $shown into $doc: $stamp"
