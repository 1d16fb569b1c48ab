#!/usr/bin/env bash
# boundary_breakdown.sh MORPHEUS UD_TYPES_GOLD
# studies/boundary_breakdown.py on the first words of the UD types tune part: a system that
# writes the gold's first alternative scores 1 everywhere, whole words score 0, a system that
# adds one cut inside every root keeps stem recall and suffix P/R at 1 and loses exactly those
# cuts as "FP root"; a gold file holding a report-part word is refused.
set -u
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"
m=$1 gold=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
script=$morpheus_repo_dir/studies/boundary_breakdown.py
ud_tune_systems "$m" "$gold" "$dir" || fail "the systems"
python3 "$script" --gold-set ud_types --gold "$dir/gold.tsv" --seg exact="$dir/exact.seg" \
  --seg whole="$dir/whole.seg" --seg rootcut="$dir/rootcut.seg" --compare rootcut:exact \
  --resamples 100 > "$dir/out.md" || fail "the script failed: $(tail -3 "$dir/out.md")"
n=$(grep -m1 -oE '^\| exact \| [0-9]+ \|' "$dir/out.md" | tr -dc '0-9')
[ "${n:-0}" -ge 15 ] || fail "only ${n:-0} words scored: $(head -12 "$dir/out.md")"
grep -q "^| exact | $n | 1.000 | 1.000 | 1.000 | 1.000 |" "$dir/out.md" || fail "exact row"
grep -q "^| whole | $n | 0.000 | 0.000 | 0.000 | 0.000 |" "$dir/out.md" || fail "whole row"
# By boundary type: rootcut hits every stem edge and suffix boundary; its extra cuts are FP root.
row=$(grep -m1 "^| rootcut | $n | " "$dir/out.md" | tail -1)
type_row=$(awk '/^### By boundary type/ {t = 1} t && /^\| rootcut \|/ {print; exit}' "$dir/out.md")
IFS='|' read -r _ _ stem_gold stem_hits fp_root stem_p stem_r _ _ _ fp_suffix suffix_p suffix_r _ \
  <<< "$type_row"
trim() { echo "$1" | tr -d ' '; }
cuts=$(trim "${fp_root%%(*}")  # one per scored word whose root has two letters or more
[ "$(trim "$stem_hits")" = "$(trim "$stem_gold")" ] || fail "stem hits: $type_row"
[ "$cuts" -ge $((n / 2)) ] && [ "$cuts" -le "$n" ] || fail "FP root should be the root cuts: $type_row"
[ "$(trim "$fp_suffix")" = "0(0.0)" ] || fail "no FP among the suffixes: $type_row"
[ "$(trim "$stem_r")" = 1.000 ] && [ "$(trim "$suffix_p")" = 1.000 ] &&
  [ "$(trim "$suffix_r")" = 1.000 ] || fail "recall and suffix P/R should be 1: $type_row"
want_p=$(python3 -c "print(f'{$(trim "$stem_gold") / ($(trim "$stem_gold") + $cuts):.3f}')")
[ "$(trim "$stem_p")" = "$want_p" ] || fail "stem P $stem_p, want $want_p: $type_row"
[ -n "$row" ] || fail "no overall rootcut row"
# A report-part word in the gold file: refused.
"$m" -q gold-split --gold ud_types --part report "$gold" -o "$dir/report.tsv" || fail gold-split
head -n 3 "$dir/report.tsv" > "$dir/bad.tsv"
if python3 "$script" --gold-set ud_types --gold "$dir/bad.tsv" --seg exact="$dir/exact.seg" \
    > "$dir/bad.out" 2>&1; then
  fail "a report-part gold file was accepted"
fi
grep -qi "report" "$dir/bad.out" || fail "the refusal does not say why: $(cat "$dir/bad.out")"
echo ok
