#!/usr/bin/env python3
"""Summary table of the objective ablation (scripts/objective_ablation.sh), TUNE part only.

Reads the tune gold files (GOLD_DIR/<set>_tune.tsv, what `morpheus gold-split --part tune`
prints) and one segmentation file per model (SEG_DIR/<variant>-s<seed>.tsv), scores them with
scripts/boundary_breakdown.py's definitions, and prints one markdown table: the full model's
figures, then for each ablated variant the difference to the full model of the same seed,
averaged over the seeds, with the per-seed differences in brackets; last, the reference of each
further seed against the first seed's (how far a seed alone moves the figures). Columns per gold
set: F1, stem-edge F1 and later-boundary F1 (MorphScore and the stem-edge recall for
ud_stem_boundary), and F1 on the words the training text lacks (unseen; --seen).

Usage: objective_ablation_summary.py --gold-dir DIR --seg-dir DIR --seen TYPES.tsv
           --seeds 1337 2 --variants full no-sgns no-ctr no-mlm [--sets mc2010 ud_types …]
The first variant is the reference; --sets (default: all four) the gold sets to score. Python 3, standard library only.
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
        return {"MorphScore": bb.morphscore(t)[2], "stem R": bb.morphscore(t)[1],
                "unseen": bb.morphscore(unseen)[2]}
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
    seen = set()
    with open(a.seen, encoding="utf-8") as f:
        for line in f:
            seen.add(bb.scoring_form(line.rstrip("\n").split("\t", 1)[0]))
    # fig[(variant, seed)][gold set][column]
    fig = {}
    for gold_set in a.sets:
        gold = bb.LOADERS[gold_set](os.path.join(a.gold_dir, f"{gold_set}_tune.tsv"))
        for v in a.variants:
            for s in a.seeds:
                path = os.path.join(a.seg_dir, f"{v}-s{s}.tsv")
                seg = bb.load_segmentations(path)
                fig.setdefault((v, s), {})[gold_set] = figures(gold_set, gold, seg, seen)

    head = ["variant"] + [f"{g} {c}" for g in a.sets for c in COLUMNS[g]]
    print("| " + " | ".join(head) + " |")
    print("|---" + "|---:" * (len(head) - 1) + "|")
    ref = a.variants[0]
    cells = [f"{ref} (mean of seeds {', '.join(a.seeds)})"]
    for g in a.sets:
        for c in COLUMNS[g]:
            vals = [fig[(ref, s)][g][c] for s in a.seeds]
            cells.append(f"{sum(vals) / len(vals):.3f}")
    print("| " + " | ".join(cells) + " |")
    for v in a.variants[1:]:
        cells = [f"{v} − {ref}"]
        for g in a.sets:
            for c in COLUMNS[g]:
                d = [fig[(v, s)][g][c] - fig[(ref, s)][g][c] for s in a.seeds]
                per_seed = " / ".join(f"{x:+.3f}" for x in d)
                cells.append(f"{sum(d) / len(d):+.3f} ({per_seed})")
        print("| " + " | ".join(cells) + " |")
    for s in a.seeds[1:]:  # the seed's own spread: the reference of one seed against another
        cells = [f"{ref} s{s} − {ref} s{a.seeds[0]} (seed spread)"]
        for g in a.sets:
            for c in COLUMNS[g]:
                cells.append(f"{fig[(ref, s)][g][c] - fig[(ref, a.seeds[0])][g][c]:+.3f}")
        print("| " + " | ".join(cells) + " |")
    print()
    print("Tune words: " + ", ".join(
        f"{g} {len(bb.LOADERS[g](os.path.join(a.gold_dir, f'{g}_tune.tsv')))}" for g in a.sets) +
        ". Per-seed differences in brackets (seed order: " + ", ".join(a.seeds) + ").")


if __name__ == "__main__":
    main()
