#!/usr/bin/env python3
"""Boundary-type breakdown of segmentation systems on the TUNE part of one gold set.

A diagnosis tool: where does one system (the student) win or lose against another (its
teacher)? It reads the tune part of one gold set (what `morpheus gold-split --part tune` prints)
and one segmentation file per system (`word<TAB>piece piece…`, what a `segment` command prints),
and prints markdown tables:

  1. overall boundary P/R/F1 (micro, as `morpheus eval`) and the exact-match rate;
  2. P/R/F1 by boundary TYPE: the stem edge (the first interior boundary of the best gold
     alternative, root|suffix) vs the later ones (suffix|suffix). A correct predicted boundary
     takes the type of the gold boundary it hits; a wrong one is a false positive "inside root"
     when left of the gold stem edge (the whole word when the gold has no boundary), else "inside
     suffixes". Stem-edge P = stem hits / (stem hits + FP inside root); suffix P = suffix hits /
     (suffix hits + FP inside suffixes), so the two types partition every predicted boundary;
  3. F1 by word length (code points: <=5, 6-8, 9-11, >=12) and by seen / unseen (seen = a word of
     --seen, e.g. runs/main/types.tsv, first column, Turkish lower-cased), overall and per type;
  4. for each compared pair A:B: words A gets exactly right and B not, and vice versa (exact =
     the predicted boundary set equals a gold alternative's), with examples;
  5. a paired bootstrap (resampling words) 95 % CI of the A-minus-B F1 difference, overall and
     per boundary type.
For the ud_stem_boundary set (one gold boundary per word: the stem edge) it reports MorphScore as
`morpheus eval` does (macro F1 of the mean precision and mean recall; a prediction of <= 1 piece
scores P = R = 0), the stem-edge recall, and where the extra predicted boundaries lie.

Definitions mirror eval/ (boundary_metrics.cc, gold_data.cc, gold_policy.cc, morph_metrics.cc):
words and gold pieces are Turkish lower-cased (I -> ı, İ -> i), entries that fold to the same
word are merged, the best gold alternative is the one with the most hits (ties: fewest gold
boundaries, then the first), words a system has no line for are skipped for that system.

Hard rule: the script refuses a gold file holding any report-part item (the project's split:
FNV-1a 64 of "morpheus-split-v1:" + lower-cased word, mod 10,000, below the tune share).

Python 3, standard library only.

Usage:
  # the tune gold lines, and the word list to segment (lower-cased, one per line)
  build/dev/tools/morpheus gold-split --gold penn --part tune \\
      ../shared/data/gold/penn_tokens_segmentation.tsv -o runs/study/penn_tune.tsv
  python3 studies/boundary_breakdown.py --gold-set penn --gold runs/study/penn_tune.tsv \\
      --list-words > runs/study/penn_words.txt
  build/dev/tools/morpheus segment --model runs/main/tokenizer runs/study/penn_words.txt \\
      > runs/study/seg/morpheus.tsv            # and so on, one file per system
  # the tables
  python3 studies/boundary_breakdown.py --gold-set penn --gold runs/study/penn_tune.tsv \\
      --seg morpheus=runs/study/seg/morpheus.tsv \\
      --seg teacher-semi-snap=runs/study/seg/teacher-semi-snap.tsv \\
      --seen runs/main/types.tsv --compare morpheus:teacher-semi-snap > penn.md

Options: --gold-set {mc2010,ud_types,penn,ud_stem_boundary}; --gold FILE; --seg NAME=FILE
(repeatable; table order = argument order); --seen FILE (first tab field = a seen word;
optional); --compare A:B (repeatable; default: the first two --seg systems); --examples N (15);
--resamples N (1000); --seed N (12345); --list-words (print the folded words and stop);
--letters-only (keep only words of letters, e.g. Penn without its number and apostrophe tokens);
--title TEXT (heading).
"""

import argparse
import random
import sys
import unicodedata

TUNE_SHARE = {"mc2010": 0.5, "ud_types": 0.1, "penn": 0.1, "ud_stem_boundary": 0.1}
BUCKETS = [("<=5", 0, 5), ("6-8", 6, 8), ("9-11", 9, 11), (">=12", 12, 10**9)]
SPACES = set(range(0x09, 0x0E)) | {0x20, 0x85, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F,
                                   0x3000} | set(range(0x2000, 0x200B))


# ---- Case and split (eval/gold_policy.cc, core/unicode.cc)

def scoring_form(text):
    """Turkish lower case, one code point for one (İ -> i, I -> ı; 'i' + U+0307 -> 'i')."""
    out = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "I":
            low = "ı"
        elif c == "İ":
            low = "i"
        else:
            low = c.lower()
            if len(low) != 1:
                low = c
        out.append(low)
        i += 1
        if low == "i" and i < len(text) and text[i] == "\u0307":
            i += 1
    return "".join(out)


def fnv1a64(data, h=0xCBF29CE484222325):
    for b in data:
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


SPLIT_SEED = fnv1a64(b"morpheus-split-v1:")


def is_tune(word, share):
    h = fnv1a64(scoring_form(word).encode("utf-8"), SPLIT_SEED)
    return (h % 10000) < share * 10000.0


# ---- Gold loaders (eval/gold_data.cc) and case folding

def data_rows(path, sep="\t"):
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n").rstrip("\r")
            if n == 1 or not line:  # header
                continue
            yield n, line.split(sep)


def pieces_of(text, sep):
    return [p for p in text.split(sep) if p]


def fold_segmentations(items):
    """[(word, [pieces…])] -> [(folded word, [folded pieces…])], alternatives united."""
    out, index = [], {}
    for word, alts in items:
        w = scoring_form(word)
        if w not in index:
            index[w] = len(out)
            out.append((w, []))
        have = out[index[w]][1]
        for alt in alts:
            folded = [scoring_form(p) for p in alt]
            if folded not in have:
                have.append(folded)
    return out


def load_mc2010(path):
    items = []
    for n, f in data_rows(path):
        alts = []
        for alt in f[1].split(" , "):
            pieces = pieces_of(alt.strip(" "), " ")
            if "".join(pieces) != f[0]:
                sys.exit(f"{path}: line {n}: '{alt}' does not spell '{f[0]}'")
            alts.append(pieces)
        items.append((f[0], alts))
    return fold_segmentations(items)


def load_ud_types(path):
    items = []
    for n, f in data_rows(path):
        if len(f) != 5:
            sys.exit(f"{path}: line {n}: expected 5 fields")
        if f[4] != "UNIQUE":
            continue
        alts = [pieces_of(a.strip(" "), "|") for a in f[3].split(";")]
        items.append((f[0], alts))
    return fold_segmentations(items)


def load_penn(path):
    types, index = [], {}
    for n, f in data_rows(path):
        if len(f) != 5:
            sys.exit(f"{path}: line {n}: expected 5 fields")
        if f[2] != "OK":
            continue
        seg = pieces_of(f[3], "|")
        if f[0] not in index:
            index[f[0]] = len(types)
            types.append((f[0], []))
        alts = types[index[f[0]]][1]
        if seg not in alts:
            alts.append(seg)
    return fold_segmentations(types)


def load_ud_stem_boundary(path):
    """MorphScore items with the reference filters; one alternative (stem, rest) per word."""
    items, index = [], {}
    for n, f in data_rows(path):
        if len(f) < 6:
            sys.exit(f"{path}: line {n}: expected 8 fields")
        if f[4] != f[1]:
            continue
        word = f[0]
        pieces = [p for p in (f[4], f[5]) if p]
        if not word or any(unicodedata.category(c) == "Nd" or ord(c) in SPACES for c in word):
            continue
        if not 2 <= len(word) <= 30:
            continue
        if word in index:
            continue
        index[word] = len(items)
        items.append((word, pieces))
    items = [(w, p) for w, p in items if len(p) >= 2 and "".join(p) == w]
    out, seen = [], set()
    for w, p in items:  # fold_case: first gold kept
        fw = scoring_form(w)
        if fw in seen:
            continue
        seen.add(fw)
        out.append((fw, [[scoring_form(x) for x in p]]))
    return out


LOADERS = {"mc2010": load_mc2010, "ud_types": load_ud_types, "penn": load_penn,
           "ud_stem_boundary": load_ud_stem_boundary}


# ---- Systems' segmentations (eval/system_runs.cc read_segmentations)

def load_segmentations(path):
    seg = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n").rstrip("\r")
            if not line:
                continue
            tab = line.find("\t")
            if tab <= 0:
                sys.exit(f"{path}: line {n}: expected word<TAB>piece piece…")
            seg.setdefault(line[:tab], [p for p in line[tab + 1:].split(" ") if p])
    return seg


def load_seen(path):
    """The seen words: the first tab field of each line of PATH (e.g. runs/main/types.tsv),
    in scoring form."""
    with open(path, encoding="utf-8") as f:
        return {scoring_form(line.rstrip("\n").split("\t", 1)[0]) for line in f}


def boundaries(pieces):
    cuts, off = [], 0
    for p in pieces:
        if not p:
            continue
        if off > 0:
            cuts.append(off)
        off += len(p)
    return cuts


# ---- Per-word scoring

class WordScore:
    """Counts of one word for one system against its best gold alternative."""
    __slots__ = ("hits", "pred", "gold", "stem_gold", "stem_hit", "suf_gold", "suf_hit",
                 "fp_root", "fp_suf", "exact", "ms_p", "ms_r", "pieces", "best")

    def __init__(self, pred_pieces, alternatives):
        pred = boundaries(pred_pieces)
        best, best_hits = None, -1
        for alt in alternatives:
            g = boundaries(alt)
            h = sum(1 for b in pred if b in g)
            if best is None or h > best_hits or (h == best_hits and len(g) < len(best)):
                best, best_hits = g, h
        gset = set(best)
        self.pieces, self.best = pred_pieces, best
        self.hits, self.pred, self.gold = best_hits, len(pred), len(best)
        edge = best[0] if best else None
        self.stem_gold = 1 if best else 0
        self.stem_hit = 1 if edge is not None and edge in pred else 0
        self.suf_gold = max(0, len(best) - 1)
        self.suf_hit = best_hits - self.stem_hit
        limit = edge if edge is not None else 10**9
        wrong = [b for b in pred if b not in gset]
        self.fp_root = sum(1 for b in wrong if b < limit)
        self.fp_suf = len(wrong) - self.fp_root
        self.exact = set(pred) == gset or any(set(pred) == set(boundaries(a))
                                              for a in alternatives)
        # MorphScore (morph_metrics.cc): <= 1 piece scores P = R = 0.
        if len(pred_pieces) <= 1:
            self.ms_p = self.ms_r = 0.0
        else:
            self.ms_r = best_hits / len(best) if best else 0.0
            self.ms_p = best_hits / len(pred) if pred else 0.0


def f1(p, r):
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


def prf(hits, pred, gold):
    p = hits / pred if pred else 0.0
    r = hits / gold if gold else 0.0
    return p, r, f1(p, r)


def totals(scores):
    t = dict(hits=0, pred=0, gold=0, stem_gold=0, stem_hit=0, suf_gold=0, suf_hit=0, fp_root=0,
             fp_suf=0, exact=0, ms_p=0.0, ms_r=0.0, n=0)
    for s in scores:
        t["n"] += 1
        for k in ("hits", "pred", "gold", "stem_gold", "stem_hit", "suf_gold", "suf_hit",
                  "fp_root", "fp_suf", "exact", "ms_p", "ms_r"):
            t[k] += getattr(s, k)
    return t


def overall_f1(t):
    return prf(t["hits"], t["pred"], t["gold"])[2]


def stem_prf(t):
    return prf(t["stem_hit"], t["stem_hit"] + t["fp_root"], t["stem_gold"])


def suf_prf(t):
    return prf(t["suf_hit"], t["suf_hit"] + t["fp_suf"], t["suf_gold"])


def morphscore(t):
    if not t["n"]:
        return 0.0, 0.0, 0.0
    p, r = t["ms_p"] / t["n"], t["ms_r"] / t["n"]
    return p, r, f1(p, r)


def fmt(x):
    return f"{x:.3f}"


def seg_text(pieces):
    return " ".join(pieces) if pieces else "∅"


def gold_text(word, cuts):
    out, prev = [], 0
    for c in list(cuts) + [len(word)]:
        out.append(word[prev:c])
        prev = c
    return "|".join(out)


def is_letter_word(word):
    """Letters and combining marks only, starting with a letter (gold_data.cc is_letter_word)."""
    return bool(word) and word[0].isalpha() and all(
        c.isalpha() or unicodedata.category(c).startswith("M") for c in word)


def bucket_of(word):
    n = len(word)
    for name, lo, hi in BUCKETS:
        if lo <= n <= hi:
            return name
    return BUCKETS[-1][0]


# ---- Bootstrap

def bootstrap(pairs, metrics, resamples, seed):
    """pairs: [(score_a, score_b)] per word. metrics: name -> fn(totals) -> value.
    Returns name -> (observed diff, lo, hi) of metric(A) - metric(B), 95 % percentile CI."""
    keys = ("hits", "pred", "gold", "stem_gold", "stem_hit", "suf_gold", "suf_hit", "fp_root",
            "fp_suf", "exact", "ms_p", "ms_r")
    cols_a = [[getattr(a, k) for a, _ in pairs] for k in keys]
    cols_b = [[getattr(b, k) for _, b in pairs] for k in keys]

    def tot(cols, idx):
        d = {k: sum(map(col.__getitem__, idx)) for k, col in zip(keys, cols)}
        d["n"] = len(idx)
        return d

    n = len(pairs)
    everything = list(range(n))
    observed = {m: fn(tot(cols_a, everything)) - fn(tot(cols_b, everything))
                for m, fn in metrics.items()}
    rng = random.Random(seed)
    samples = {m: [] for m in metrics}
    for _ in range(resamples):
        idx = [rng.randrange(n) for _ in range(n)]
        ta, tb = tot(cols_a, idx), tot(cols_b, idx)
        for m, fn in metrics.items():
            samples[m].append(fn(ta) - fn(tb))
    out = {}
    for m in metrics:
        s = sorted(samples[m])
        lo = s[int(0.025 * (len(s) - 1))]
        hi = s[int(round(0.975 * (len(s) - 1)))]
        out[m] = (observed[m], lo, hi)
    return out


# ---- Report

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gold-set", required=True, choices=sorted(LOADERS))
    ap.add_argument("--gold", required=True)
    ap.add_argument("--seg", action="append", default=[], metavar="NAME=FILE")
    ap.add_argument("--seen")
    ap.add_argument("--compare", action="append", default=[], metavar="A:B")
    ap.add_argument("--examples", type=int, default=15)
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=12345)
    ap.add_argument("--list-words", action="store_true")
    ap.add_argument("--title")
    ap.add_argument("--letters-only", action="store_true",
                    help="score only words made of letters (and marks): no digit, apostrophe, …")
    a = ap.parse_args()

    gold = LOADERS[a.gold_set](a.gold)
    share = TUNE_SHARE[a.gold_set]
    report = [w for w, _ in gold if not is_tune(w, share)]
    if report:
        sys.exit(f"boundary_breakdown: {len(report)} report-part words in {a.gold} (e.g. "
                 f"'{report[0]}'); give it the tune part: morpheus gold-split --part tune")
    if a.letters_only:
        gold = [(w, alts) for w, alts in gold if is_letter_word(w)]
    if a.list_words:
        for w, _ in gold:
            if not any(c in " \t\r\n" for c in w):
                print(w)
        return

    systems = []
    for spec in a.seg:
        name, _, path = spec.partition("=")
        if not path:
            sys.exit(f"--seg wants NAME=FILE, got '{spec}'")
        systems.append((name, load_segmentations(path)))
    names = [n for n, _ in systems]
    compares = [tuple(c.split(":", 1)) for c in a.compare]
    if not compares and len(names) >= 2:
        compares = [(names[0], names[1])]
    for pa, pb in compares:
        if pa not in names or pb not in names:
            sys.exit(f"--compare {pa}:{pb}: both must be --seg names")
    seen = load_seen(a.seen) if a.seen else None

    # Per system: word -> WordScore (words without a line are skipped, as eval does).
    scores = {}
    for name, seg in systems:
        scores[name] = {w: WordScore(seg[w], alts) for w, alts in gold if w in seg}
    words = [w for w, _ in gold]
    is_ms = a.gold_set == "ud_stem_boundary"

    out = []
    title = a.title or f"{a.gold_set} (tune part)"
    out.append(f"## {title}\n")
    nseen = sum(1 for w in words if seen is not None and w in seen)
    out.append(f"{len(words)} words" + (f" ({nseen} seen / {len(words) - nseen} unseen)"
                                        if seen is not None else "") + ".\n")

    # 1. overall
    out.append("### Overall\n")
    if is_ms:
        out.append("| system | n | MorphScore (macro F1) | mean P | mean R = stem-edge recall | "
                   "single-piece | micro P | micro R | micro F1 |")
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for name in names:
            t = totals(scores[name].values())
            p, r, mf = morphscore(t)
            single = sum(1 for s in scores[name].values() if len(s.pieces) <= 1)
            mp, mr, mf1 = prf(t["hits"], t["pred"], t["gold"])
            out.append(f"| {name} | {t['n']} | {fmt(mf)} | {fmt(p)} | {fmt(r)} | "
                       f"{single / max(1, t['n']):.3f} | {fmt(mp)} | {fmt(mr)} | {fmt(mf1)} |")
    else:
        out.append("| system | n | P | R | F1 | exact words | boundaries pred / gold |")
        out.append("|---|---:|---:|---:|---:|---:|---:|")
        for name in names:
            t = totals(scores[name].values())
            p, r, ff = prf(t["hits"], t["pred"], t["gold"])
            out.append(f"| {name} | {t['n']} | {fmt(p)} | {fmt(r)} | {fmt(ff)} | "
                       f"{t['exact'] / max(1, t['n']):.3f} | {t['pred']} / {t['gold']} |")
    missing = [f"{n}: {len(words) - len(scores[n])}" for n in names if len(scores[n]) < len(words)]
    if missing:
        out.append(f"\nWords without a prediction (skipped): {', '.join(missing)}.")
    out.append("")

    # 2. by boundary type
    out.append("### By boundary type\n")
    out.append("Stem edge = the first gold boundary (root|suffix); suffix = later gold boundaries "
               "(suffix|suffix). FP root / FP suffixes = wrong predicted boundaries left / right "
               "of the gold stem edge; per-type P counts them against the stem edge / the suffix "
               "boundaries. FP per 100 words in brackets.\n")
    if is_ms:
        out.append("The gold has one boundary, the stem edge (stem = the UD lemma); cuts right of "
                   "it fall inside the suffix chain, which MorphScore counts as errors.\n")
        out.append("| system | stem gold | stem hits | FP root (/100 w) | stem P | stem R | stem F1 | "
                   "cuts in the suffix chain (/100 w) |")
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|")
    else:
        out.append("| system | stem gold | stem hits | FP root (/100 w) | stem P | stem R | stem F1 | "
                   "suffix gold | suffix hits | FP suffixes (/100 w) | suffix P | suffix R | "
                   "suffix F1 |")
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in names:
        t = totals(scores[name].values())
        sp, sr, sf = stem_prf(t)
        up, ur, uf = suf_prf(t)
        n = max(1, t["n"])
        row = (f"| {name} | {t['stem_gold']} | {t['stem_hit']} | {t['fp_root']} "
               f"({100 * t['fp_root'] / n:.1f}) | {fmt(sp)} | {fmt(sr)} | {fmt(sf)} | ")
        if is_ms:
            row += f"{t['fp_suf']} ({100 * t['fp_suf'] / n:.1f}) |"
        else:
            row += (f"{t['suf_gold']} | {t['suf_hit']} | {t['fp_suf']} "
                    f"({100 * t['fp_suf'] / n:.1f}) | {fmt(up)} | {fmt(ur)} | {fmt(uf)} |")
        out.append(row)
    out.append("")

    # 3. word classes
    classes = [(f"len {b}", (lambda w, b=b: bucket_of(w) == b)) for b, _, _ in BUCKETS]
    if seen is not None:
        classes += [("seen", lambda w: w in seen), ("unseen", lambda w: w not in seen)]
    if any(not is_letter_word(w) for w in words):
        classes += [("non-letter", lambda w: not is_letter_word(w))]
    sizes = {c: sum(1 for w in words if fn(w)) for c, fn in classes}
    metric = (lambda t: morphscore(t)[2]) if is_ms else overall_f1
    label = "MorphScore" if is_ms else "F1"
    out.append(f"### {label} by word class (n words per class in the header)\n")
    out.append("| system | " + " | ".join(f"{c} (n={sizes[c]})" for c, _ in classes) + " |")
    out.append("|---|" + "---:|" * len(classes))
    for name in names:
        cells = []
        for c, fn in classes:
            sub = [s for w, s in scores[name].items() if fn(w)]
            cells.append(fmt(metric(totals(sub))) if sub else "–")
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    out.append("")
    out.append("Stem-edge F1 / suffix F1 by word class:\n" if not is_ms else
               "Stem-edge F1 / cuts in the suffix chain per 100 words, by word class:\n")
    out.append("| system | " + " | ".join(f"{c}" for c, _ in classes) + " |")
    out.append("|---|" + "---:|" * len(classes))
    for name in names:
        cells = []
        for c, fn in classes:
            t = totals(s for w, s in scores[name].items() if fn(w))
            if not t["n"]:
                cells.append("–")
            elif is_ms:
                cells.append(f"{fmt(stem_prf(t)[2])} / {100 * t['fp_suf'] / t['n']:.0f}")
            else:
                cells.append(f"{fmt(stem_prf(t)[2])} / {fmt(suf_prf(t)[2])}")
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    out.append("")

    # 4. and 5. per compared pair
    for pa, pb in compares:
        both = [w for w in words if w in scores[pa] and w in scores[pb]]
        sa, sb = scores[pa], scores[pb]
        only_a = [w for w in both if sa[w].exact and not sb[w].exact]
        only_b = [w for w in both if sb[w].exact and not sa[w].exact]
        both_ok = sum(1 for w in both if sa[w].exact and sb[w].exact)
        neither = len(both) - both_ok - len(only_a) - len(only_b)
        out.append(f"### {pa} vs {pb}: exact-match confusion ({len(both)} words)\n")
        if is_ms:
            out.append("(exact = the stem|rest split and no other cut.)\n")
        out.append(f"| | {pb} right | {pb} wrong |")
        out.append("|---|---:|---:|")
        out.append(f"| {pa} right | {both_ok} | {len(only_a)} |")
        out.append(f"| {pa} wrong | {len(only_b)} | {neither} |")
        out.append("")
        for tag, lst, right in ((f"{pa} right, {pb} wrong", only_a, pa),
                                (f"{pb} right, {pa} wrong", only_b, pb)):
            # where the loser errs: count stem-edge misses vs suffix errors
            loser = pb if right == pa else pa
            stem_err = sum(1 for w in lst if scores[loser][w].stem_hit < scores[loser][w].stem_gold
                           or scores[loser][w].fp_root)
            out.append(f"{tag}: {len(lst)} words; {stem_err} of them with a stem-edge error of "
                       f"{loser} (missed edge or a cut inside the root). First {a.examples} "
                       f"(alphabetical):\n")
            out.append(f"| word | gold (best alt.) | {pa} | {pb} |")
            out.append("|---|---|---|---|")
            for w in sorted(lst)[:a.examples]:
                out.append(f"| {w} | {gold_text(w, scores[right][w].best)} | "
                           f"{seg_text(sa[w].pieces)} | {seg_text(sb[w].pieces)} |")
            out.append("")
        metrics = {"F1 (micro)": overall_f1, "stem-edge F1": lambda t: stem_prf(t)[2],
                   "suffix F1": lambda t: suf_prf(t)[2],
                   "stem-edge R": lambda t: stem_prf(t)[1],
                   "stem-edge P": lambda t: stem_prf(t)[0],
                   "suffix R": lambda t: suf_prf(t)[1],
                   "suffix P": lambda t: suf_prf(t)[0],
                   "exact-match rate": lambda t: t["exact"] / t["n"] if t["n"] else 0.0}
        if is_ms:
            metrics = {"MorphScore": lambda t: morphscore(t)[2],
                       "MorphScore mean R (stem edge)": lambda t: morphscore(t)[1],
                       "MorphScore mean P": lambda t: morphscore(t)[0],
                       "micro F1": overall_f1,
                       "FP root /word": lambda t: t["fp_root"] / t["n"] if t["n"] else 0.0,
                       "FP suffixes /word": lambda t: t["fp_suf"] / t["n"] if t["n"] else 0.0}
        ci = bootstrap([(sa[w], sb[w]) for w in both], metrics, a.resamples, a.seed)
        out.append(f"Paired bootstrap over {len(both)} words ({a.resamples} resamples, seed "
                   f"{a.seed}): {pa} minus {pb}, 95 % CI:\n")
        out.append("| metric | diff | 95 % CI |")
        out.append("|---|---:|---|")
        for m, (d, lo, hi) in ci.items():
            flag = " *" if lo > 0 or hi < 0 else ""
            out.append(f"| {m} | {d:+.3f}{flag} | [{lo:+.3f}, {hi:+.3f}] |")
        out.append("\n(* = the CI excludes 0.)\n")
    print("\n".join(out))


if __name__ == "__main__":
    main()
