#!/usr/bin/env python3
"""The new-text bench's input (bench/new_text_bench.sh, bench/peers_bench.sh).

Usage: new_text_input.py CORPUS WORK

The corpus's non-empty lines alternate between a training half and a held-out half: WORK/
train_words.tsv holds the training half's words (word<TAB>count, the tokenizer's table) and
WORK/new_text.txt the held-out half four times over, shuffled with seed 1 (about 45 % of its
distinct letter runs are outside the table). Prints the input's size and that share.
"""
import collections
import random
import re
import sys


def main(corpus, work):
    lines = [l for l in open(corpus, encoding="utf-8").read().split("\n") if l.strip()]
    held, train = lines[0::2], lines[1::2]
    counts = collections.Counter(w for l in train for w in l.split())
    with open(work + "/train_words.tsv", "w", encoding="utf-8") as f:
        f.writelines(f"{w}\t{n}\n" for w, n in counts.most_common())
    rng = random.Random(1)
    out = []
    for _ in range(4):
        copy = held[:]
        rng.shuffle(copy)
        out += copy
    open(work + "/new_text.txt", "w", encoding="utf-8").write("\n".join(out) + "\n")

    def runs(ls):
        return {r for l in ls for r in re.findall(r"[^\W\d_]+", l.lower())}

    h, t = runs(held), runs(train)
    print(f"input {work}/new_text.txt: {sum(len(l.encode()) + 1 for l in out) / 1e6:.1f} MB, "
          f"{len(out)} lines, {len(h)} distinct letter runs, {len(h - t)} "
          f"({100 * len(h - t) / len(h):.0f} %) outside the table")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
