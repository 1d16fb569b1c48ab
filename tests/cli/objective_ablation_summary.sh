#!/usr/bin/env bash
# objective_ablation_summary.sh MORPHEUS UD_TYPES_GOLD
# studies/objective_ablation_summary.py on the first words of the UD types tune part, two seeds:
# a reference that writes the gold's first alternative (both seeds), and a variant that adds one
# cut inside every root with seed 1 and keeps every word whole with seed 2. The reference scores
# 1 and its seed spread 0; the variant's per-seed differences are those of the two systems (root
# cuts: the later boundaries untouched; whole words: every F1 −1), their mean in front.
set -u
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"
fail() { echo "FAIL: $*"; exit 1; }
m=$1 gold=$2 script=$morpheus_repo_dir/studies/objective_ablation_summary.py
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/gold" "$dir/seg"
ud_tune_systems "$m" "$gold" "$dir" || fail "the systems"
cp "$dir/gold.tsv" "$dir/gold/ud_types_tune.tsv"
for s in 1 2; do cp "$dir/exact.seg" "$dir/seg/ref-s$s.tsv"; done
cp "$dir/rootcut.seg" "$dir/seg/var-s1.tsv"
cp "$dir/whole.seg" "$dir/seg/var-s2.tsv"
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
