#!/usr/bin/env bash
# Chooses the boundary threshold of a trained checkpoint on the TUNE part of the gold sets (never
# the report part): exports the checkpoint once per candidate threshold, scores every export with
# `morpheus eval --split tune`, and keeps the threshold with the best mean of the MC2010, UD and
# Penn boundary F1 and the UD MorphScore (ties: the lowest threshold). Writes OUT/threshold.txt
# (the chosen value) and OUT/scores.tsv (threshold, the four scores, their mean).
# Usage: scripts/choose_threshold.sh CHECKPOINT WORDS_TSV TRAINING_TEXT OUT [THRESHOLD…]
set -euo pipefail
cd "$(dirname "$0")/.."
checkpoint=$1 words=$2 text=$3 out=$4
shift 4
thresholds=("$@")
[ ${#thresholds[@]} -gt 0 ] || thresholds=(0.13 0.2 0.27 0.35 0.42 0.5 0.58)
M=${MORPHEUS:-build/dev/tools/morpheus}  # the front; tests point it at their build
mkdir -p "$out"
systems=""
for t in "${thresholds[@]}"; do
  bash scripts/export_tokenizer.sh "$checkpoint" "$out/tokenizer-$t" --vocab-size 50000 \
    --words "$words" --threshold "$t" >/dev/null
  systems+="{\"name\": \"t$t\", \"segment\": \"$M segment --model $out/tokenizer-$t {input}\"},"
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
    s = f"t{th}"
    scores = [value("boundary_mc2010", s, "micro_F1"), value("boundary_ud", s, "micro_F1"),
              value("boundary_penn", s, "micro_F1"), value("morphscore_ud", s, "macro_f1")]
    rows.append((sum(scores) / len(scores), th, scores))
with open(f"{out}/scores.tsv", "w") as f:
    f.write("threshold\tmc2010_f1\tud_f1\tpenn_f1\tmorphscore_ud\tmean\n")
    for mean, th, sc in rows:
        f.write(th + "\t" + "\t".join(f"{x:.4f}" for x in sc) + f"\t{mean:.4f}\n")
best = max(rows, key=lambda r: (r[0], -float(r[1])))  # ties: the lowest threshold
open(f"{out}/threshold.txt", "w").write(best[1] + "\n")
print(f"choose_threshold: {best[1]} (tune mean {best[0]:.4f}); scores in {out}/scores.tsv")
PY
