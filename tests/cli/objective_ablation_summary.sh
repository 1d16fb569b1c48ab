#!/usr/bin/env bash
# objective_ablation_summary.sh MORPHEUS UD_TYPES_GOLD
# scripts/objective_ablation_summary.py on the first words of the UD types tune part, two seeds:
# a reference that writes the gold's first alternative (both seeds), and a variant that adds one
# cut inside every root with seed 1 and keeps every word whole with seed 2. The reference scores
# 1 and its seed spread 0; the variant's per-seed differences are those of the two systems (root
# cuts: the later boundaries untouched; whole words: every F1 −1), their mean in front.
set -u
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"
m=$1 gold=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
script=$morpheus_repo_dir/scripts/objective_ablation_summary.py
mkdir -p "$dir/gold" "$dir/seg"
"$m" -q gold-split --gold ud_types --part tune "$gold" -o "$dir/tune.tsv" || fail gold-split
head -n 41 "$dir/tune.tsv" > "$dir/gold/ud_types_tune.tsv"  # the header and 40 words
python3 - "$dir" "$morpheus_repo_dir/scripts" <<'PY' || fail "writing the systems"
import sys
d = sys.argv[1]
sys.path.insert(0, sys.argv[2])
from boundary_breakdown import scoring_form  # the words as the scripts key them (lower case)
rows = [l.rstrip("\n").split("\t") for l in open(f"{d}/gold/ud_types_tune.tsv", encoding="utf-8")]
exact, whole, rootcut = [], [], []
for row in rows[1:]:
    row[0] = scoring_form(row[0])
    pieces = scoring_form(row[3].split(" ; ")[0]).split("|")
    exact.append(row[0] + "\t" + " ".join(pieces))
    whole.append(row[0] + "\t" + row[0])
    if len(pieces[0]) >= 2:
        pieces = [pieces[0][:1], pieces[0][1:]] + pieces[1:]
    rootcut.append(row[0] + "\t" + " ".join(pieces))
for name, lines in [("ref-s1", exact), ("ref-s2", exact), ("var-s1", rootcut), ("var-s2", whole)]:
    open(f"{d}/seg/{name}.tsv", "w", encoding="utf-8").write("\n".join(lines) + "\n")
PY
: > "$dir/seen.tsv"  # every word unseen: the unseen column equals the whole
python3 "$script" --gold-dir "$dir/gold" --seg-dir "$dir/seg" --seen "$dir/seen.tsv" \
  --seeds 1 2 --variants ref var --sets ud_types > "$dir/out.md" 2>&1 ||
  fail "the script failed: $(tail -3 "$dir/out.md")"
grep -q '^| ref (mean of seeds 1, 2) | 1.000 | 1.000 | 1.000 | 1.000 |$' "$dir/out.md" ||
  fail "reference row: $(cat "$dir/out.md")"
grep -q '^| ref s2 − ref s1 (seed spread) | +0.000 | +0.000 | +0.000 | +0.000 |$' "$dir/out.md" ||
  fail "seed spread row: $(cat "$dir/out.md")"
row=$(grep '^| var − ref |' "$dir/out.md") || fail "no variant row: $(cat "$dir/out.md")"
IFS='|' read -r _ _ f1 stem later unseen _ <<< "$row"
# The later boundaries: root cuts leave them at 1 (+0.000), whole words lose them (−1.000).
[ "$(echo "$later" | tr -d ' ')" = "-0.500(+0.000/-1.000)" ] || fail "later column: $row"
# Overall and stem: seed 2 loses everything, seed 1 something but not everything.
python3 - "$f1" "$stem" "$unseen" <<'PY' || fail "F1 / stem / unseen columns: $row"
import re, sys
f1, stem, unseen = (re.match(r"\s*([+-][0-9.]+) \(([+-][0-9.]+) / ([+-][0-9.]+)\)", c).groups()
                    for c in sys.argv[1:])
for mean, s1, s2 in (f1, stem):
    mean, s1, s2 = float(mean), float(s1), float(s2)
    assert -1.0 < s1 < 0.0 and s2 == -1.0, (s1, s2)
    assert abs(mean - (s1 + s2) / 2) <= 0.0006, (mean, s1, s2)
assert unseen == f1, (unseen, f1)
PY
echo ok
