#!/usr/bin/env bash
# Chooses how a trained checkpoint is exported, on the TUNE part of the gold sets (never the report
# part): the boundary threshold and whether the root snap is on (`morpheus export --root-snap`).
# Exports the checkpoint once per candidate (every threshold, snap off and on), scores every export
# with `morpheus eval --split tune`, and keeps the candidate with the best mean of the MC2010, UD
# and Penn boundary F1 and the UD MorphScore (ties: the lowest threshold, then snap off). Writes
# OUT/export_args.txt (the chosen export options, e.g. "--threshold 0.42 --root-snap") and
# OUT/scores.tsv (threshold, root_snap, the four scores, their mean).
# Usage: scripts/choose_threshold.sh CHECKPOINT WORDS_TSV TRAINING_TEXT OUT [THRESHOLD…]
set -euo pipefail
cd "$(dirname "$0")/.."
checkpoint=$1 words=$2 text=$3 out=$4
shift 4
thresholds=("$@")
[ ${#thresholds[@]} -gt 0 ] || thresholds=(0.13 0.2 0.27 0.35 0.42 0.5 0.58 0.65 0.72)
M=${MORPHEUS:-build/dev/tools/morpheus}  # the front; tests point it at their build
mkdir -p "$out"
systems=""
for t in "${thresholds[@]}"; do
  for snap in 0 1; do
    name="t$t" flags=""
    if [ $snap = 1 ]; then name="t$t-snap" flags="--root-snap"; fi
    bash scripts/export_tokenizer.sh "$checkpoint" "$out/tokenizer-${name#t}" --vocab-size 50000 \
      --words "$words" --text "$text" --threshold "$t" $flags >/dev/null
    systems+="{\"name\": \"$name\", \"segment\": \"$M segment --model $out/tokenizer-${name#t} {input}\"},"
  done
done
cat > "$out/eval_tune.json" <<JSON
{"training_text": "$text", "split": "tune",
 "gold": {"ud_dir": "", "sentences": "", "sigmorphon": "", "morphscore_v1": ""},
 "systems": [${systems%,}]}
JSON
$M -q eval --config "$out/eval_tune.json" --out "$out/eval"
python3 - "$out" "${thresholds[@]}" <<'PY'
import json, sys
out, thresholds = sys.argv[1], sys.argv[2:]
report = json.load(open(f"{out}/eval/report.json"))
def value(table, system, column):
    for t in report["tables"]:
        if t["id"] == table:
            for r in t["rows"]:
                if r["system"] == system:
                    return r["values"][column]
    raise SystemExit(f"choose_threshold: no {table}/{system} in the tune report")
rows = []
for th in thresholds:
    for snap in (0, 1):
        s = f"t{th}" + ("-snap" if snap else "")
        scores = [value("boundary_mc2010", s, "micro_F1"), value("boundary_ud", s, "micro_F1"),
                  value("boundary_penn", s, "micro_F1"), value("morphscore_ud", s, "macro_f1")]
        rows.append((sum(scores) / len(scores), th, snap, scores))
with open(f"{out}/scores.tsv", "w") as f:
    f.write("threshold\troot_snap\tmc2010_f1\tud_f1\tpenn_f1\tmorphscore_ud\tmean\n")
    for mean, th, snap, sc in rows:
        f.write(f"{th}\t{snap}\t" + "\t".join(f"{x:.4f}" for x in sc) + f"\t{mean:.4f}\n")
# Ties: the lowest threshold, then snap off.
best = max(rows, key=lambda r: (round(r[0], 4), -float(r[1]), -r[2]))  # as written
args = f"--threshold {best[1]}" + (" --root-snap" if best[2] else "")
open(f"{out}/export_args.txt", "w").write(args + "\n")
print(f"choose_threshold: {args} (tune mean {best[0]:.4f}); scores in {out}/scores.tsv")
PY
