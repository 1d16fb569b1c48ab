#!/usr/bin/env python3
"""The headline comparison of a main job's report: one markdown table from RUN_DIR/eval/report.json.

Usage: results_table.py REPORT_JSON

One row per system with a segmentation or retrieval figure: boundary F1 on MC2010, UD and Penn
(micro, all words, with seen / unseen), MorphScore (macro F1 on UD stem boundaries, seen /
unseen), the sentence round trip and root-family MAP; the best figure of each column in bold.
The report itself (every table, its definitions and notes) stays in report.md.
"""
import json
import sys

# (header, report table id, value, seen, unseen); seen and unseen may be None.
COLUMNS = [
    ("MC2010 F1", "boundary_mc2010", "micro_F1", "F1_seen", "F1_unseen"),
    ("UD F1", "boundary_ud", "micro_F1", "F1_seen", "F1_unseen"),
    ("Penn F1", "boundary_penn", "micro_F1", "F1_seen", "F1_unseen"),
    ("MorphScore", "morphscore_ud", "macro_f1", "f1_seen", "f1_unseen"),
    ("round trip", "roundtrip", "sentences", None, None),
    ("MAP", "retrieval", "MAP", None, None),
]
# Rows of the report that are not systems of the headline: the trivial baselines, and the
# shipped tokenizer with the text's runs in its table (a speed row).
LEFT_OUT = {"whole-word", "characters", "morpheus-warm-table †"}


def fmt(value):
    return "–" if value is None else f"{value:.3f}"


def table(report):
    tables = {t["id"]: {r["system"]: r["values"] for r in t["rows"]} for t in report["tables"]}
    systems = []
    for t in report["tables"]:
        for r in t["rows"]:
            if r["system"] not in systems and r["system"] not in LEFT_OUT:
                systems.append(r["system"])
    cells = {}
    for system in systems:
        row = []
        for _, tid, key, seen, unseen in COLUMNS:
            values = tables.get(tid, {}).get(system, {})
            row.append(tuple(values.get(k) if k else None for k in (key, seen, unseen)))
        if any(c[0] is not None for c in row):
            cells[system] = row
    best = []
    for i in range(len(COLUMNS)):
        column = [row[i][0] for row in cells.values() if row[i][0] is not None]
        best.append(max(column) if column and COLUMNS[i][0] != "round trip" else None)
    header = ["system"] + [c[0] + (" (seen / unseen)" if c[3] else "") for c in COLUMNS]
    lines = ["| " + " | ".join(header) + " |", "|---" + "|---:" * len(COLUMNS) + "|"]
    for system, row in cells.items():
        out = [system]
        for i, (value, seen, unseen) in enumerate(row):
            text = fmt(value)
            if value is not None and value == best[i]:
                text = f"**{text}**"
            if seen is not None or unseen is not None:
                text += f" ({fmt(seen)} / {fmt(unseen)})"
            out.append(text)
        lines.append("| " + " | ".join(out) + " |")
    return "\n".join(lines) + "\n"


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    try:
        with open(argv[1], encoding="utf-8") as f:
            report = json.load(f)
        sys.stdout.write(table(report))
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.stderr.write(f"results_table: {argv[1]}: {e}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
