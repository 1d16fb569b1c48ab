#!/usr/bin/env bash
# publish_results.sh REPO
# scripts/publish_results.sh on a report.json of the eval's schema into a copy of
# docs/results.md (RESULTS_DOC): the comparison block becomes the headline table (F1 with seen /
# unseen, the best of a column in bold, a MAP-only row, the characters baseline left out) and its
# stamp; every line outside the block is unchanged; a missing report or a file without the
# markers is exit 1 and leaves the file as it was.
set -u
fail() { echo "FAIL: $*"; exit 1; }
repo=$1
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/run/eval"
python3 - "$dir/run/eval/report.json" <<'PY'
import json, sys
def rows(values):
    return [{"system": s, "n": 1, "published": None, "values": v} for s, v in values.items()]
f1 = lambda a, s, u: {"micro_F1": a, "F1_seen": s, "F1_unseen": u}
ms = lambda a, s, u: {"macro_f1": a, "f1_seen": s, "f1_unseen": u}
tables = [
    ("boundary_mc2010", {"alpha": f1(0.9, 0.95, 0.85), "beta": f1(0.5, 0.6, 0.4),
                         "characters": f1(0.99, 0.99, 0.99), "vectors": f1(None, None, None)}),
    ("boundary_ud", {"alpha": f1(0.7, 0.8, 0.6), "beta": f1(0.75, 0.8, 0.7)}),
    ("boundary_penn", {"alpha": f1(0.6, 0.6, 0.6), "beta": f1(0.5, 0.5, 0.5)}),
    ("morphscore_ud", {"alpha": ms(0.4, 0.5, 0.3), "beta": ms(0.45, 0.5, 0.4)}),
    ("roundtrip", {"alpha": {"sentences": 1.0}, "beta": {"sentences": 0.5}}),
    ("retrieval", {"alpha": {"MAP": 0.8}, "vectors": {"MAP": 0.3}}),
]
report = {"title": "t", "notes": [], "figures": [],
          "tables": [{"id": i, "rows": rows(v), "columns": []} for i, v in tables]}
json.dump(report, open(sys.argv[1], "w"))
PY
cp "$repo/docs/results.md" "$dir/results.md"
doc=$dir/results.md
RESULTS_DOC=$doc bash "$repo/scripts/publish_results.sh" "$dir/run" > "$dir/out" 2>&1 ||
  { cat "$dir/out"; fail "publish"; }
block=$(sed -n '/^<!-- report:begin -->$/,/^<!-- report:end -->$/p' "$doc")
grep -qxF '| alpha | **0.900** (0.950 / 0.850) | 0.700 (0.800 / 0.600) | **0.600** (0.600 / 0.600) | 0.400 (0.500 / 0.300) | 1.000 | **0.800** |' <<< "$block" ||
  { echo "$block"; fail "alpha row"; }
grep -qxF '| beta | 0.500 (0.600 / 0.400) | **0.750** (0.800 / 0.700) | 0.500 (0.500 / 0.500) | **0.450** (0.500 / 0.400) | 0.500 | – |' <<< "$block" ||
  fail "beta row"
grep -qxF '| vectors | – | – | – | – | – | 0.300 |' <<< "$block" || fail "MAP-only row"
grep -q "characters" <<< "$block" && fail "the characters baseline is a row"
grep -q "^Measured .* at commit " <<< "$block" || fail "no stamp"
outside() { sed '/^<!-- report:begin -->$/,/^<!-- report:end -->$/d' "$1"; }
cmp <(outside "$repo/docs/results.md") <(outside "$doc") || fail "lines outside the block changed"
cp "$doc" "$dir/before"
RESULTS_DOC=$doc bash "$repo/scripts/publish_results.sh" "$dir/none" > /dev/null 2>&1
[ $? -eq 1 ] || fail "missing report: not exit 1"
grep -v "report:end" "$dir/before" > "$doc"
cp "$doc" "$dir/before"
RESULTS_DOC=$doc bash "$repo/scripts/publish_results.sh" "$dir/run" > "$dir/out" 2>&1
[ $? -eq 1 ] || fail "no end marker: not exit 1"
grep -q "must hold one line" "$dir/out" || fail "no marker message"
cmp -s "$doc" "$dir/before" || fail "file changed on error"
echo "ok"
