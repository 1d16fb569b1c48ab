#!/usr/bin/env python3
"""Summary table of the objective ablation (studies/objective_ablation.sh), TUNE part only.

Reads the tune gold files (GOLD_DIR/<set>_tune.tsv, what `morpheus gold-split --part tune`
prints) and one segmentation file per model (SEG_DIR/<variant>-s<seed>.tsv), scores them with
studies/boundary_breakdown.py's definitions, and prints one markdown table: the full model's
figures, then for each ablated variant the difference to the full model of the same seed,
averaged over the seeds, with the per-seed differences in brackets; last, the reference of each
further seed against the first seed's (how far a seed alone moves the figures). Columns per gold
set: F1, stem-edge F1 and later-boundary F1 (MorphScore and the stem-edge recall for
ud_stem_boundary), and F1 on the words the training text lacks (unseen; --seen).

Usage: objective_ablation_summary.py --gold-dir DIR --seg-dir DIR --seen TYPES.tsv
           --seeds 1337 2 --variants full no-sgns no-ctr no-mlm [--sets mc2010 ud_types …]
The first variant is the reference; --sets (default: all four) the gold sets to score.
Python 3, standard library only.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import boundary_breakdown as bb  # noqa: E402

SETS = ["mc2010", "ud_types", "penn", "ud_stem_boundary"]
COLUMNS = {
    "mc2010": ["F1", "stem", "later", "unseen"],
    "ud_types": ["F1", "stem", "later", "unseen"],
    "penn": ["F1", "stem", "later", "unseen"],
    "ud_stem_boundary": ["MorphScore", "stem R", "unseen"],
}


def figures(gold_set, gold, seg, seen):
    """Column name -> value for one model on one gold set."""
    scores = {w: bb.WordScore(seg[w], alts) for w, alts in gold if w in seg}
    if len(scores) < len(gold):
        sys.exit(f"objective_ablation_summary: {len(gold) - len(scores)} {gold_set} words have "
                 "no segmentation; segment the study's words.txt")
    t = bb.totals(scores.values())
    unseen = bb.totals(s for w, s in scores.items() if w not in seen)
    if gold_set == "ud_stem_boundary":
        _, recall, macro_f1 = bb.morphscore(t)
        return {"MorphScore": macro_f1, "stem R": recall, "unseen": bb.morphscore(unseen)[2]}
    return {"F1": bb.overall_f1(t), "stem": bb.stem_prf(t)[2], "later": bb.suf_prf(t)[2],
            "unseen": bb.overall_f1(unseen)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gold-dir", required=True)
    ap.add_argument("--seg-dir", required=True)
    ap.add_argument("--seen", required=True)
    ap.add_argument("--seeds", nargs="+", required=True)
    ap.add_argument("--variants", nargs="+", required=True)
    ap.add_argument("--sets", nargs="+", default=SETS, choices=SETS)
    a = ap.parse_args()
    seen = bb.load_seen(a.seen)
    fig, words = {}, {}  # fig[(variant, seed)][gold set][column]; words[gold set]
    for g in a.sets:
        gold = bb.LOADERS[g](os.path.join(a.gold_dir, f"{g}_tune.tsv"))
        words[g] = len(gold)
        for v in a.variants:
            for s in a.seeds:
                seg = bb.load_segmentations(os.path.join(a.seg_dir, f"{v}-s{s}.tsv"))
                fig.setdefault((v, s), {})[g] = figures(g, gold, seg, seen)

    def row(label, cell):  # one table row: cell(gold set, column) for every column
        return "| " + " | ".join([label] + [cell(g, c) for g in a.sets for c in COLUMNS[g]]) + " |"

    def mean(xs):
        return sum(xs) / len(xs)

    ref, first = a.variants[0], a.seeds[0]
    print(row("variant", lambda g, c: f"{g} {c}"))
    print("|---" + "|---:" * sum(len(COLUMNS[g]) for g in a.sets) + "|")
    print(row(f"{ref} (mean of seeds {', '.join(a.seeds)})",
              lambda g, c: f"{mean([fig[(ref, s)][g][c] for s in a.seeds]):.3f}"))
    for v in a.variants[1:]:
        def diff(g, c, v=v):
            d = [fig[(v, s)][g][c] - fig[(ref, s)][g][c] for s in a.seeds]
            return f"{mean(d):+.3f} (" + " / ".join(f"{x:+.3f}" for x in d) + ")"
        print(row(f"{v} − {ref}", diff))
    for s in a.seeds[1:]:  # how far a seed alone moves the reference
        print(row(f"{ref} s{s} − {ref} s{first} (seed spread)",
                  lambda g, c, s=s: f"{fig[(ref, s)][g][c] - fig[(ref, first)][g][c]:+.3f}"))
    print()
    print("Tune words: " + ", ".join(f"{g} {words[g]}" for g in a.sets) +
          ". Per-seed differences in brackets (seed order: " + ", ".join(a.seeds) + ").")

if __name__ == "__main__":
    main()
