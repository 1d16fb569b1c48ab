#!/usr/bin/env python3
"""The cuts a tokenizer's id stream makes in each word: word<TAB>piece piece... per input word.

Usage: stream_segment.py MORPHEUS TOKDIR WORDS [OUT]

Each word is encoded alone (`morpheus encode --output-format json`, character offsets); a cut is
the start of an id's span inside the word (case tokens are empty, a word-initial id covers its
implicit space and piece, byte tokens of one character share its span). So with whole-morpheme
merges the output shows the stream's pieces, where `morpheus segment` shows the segmenter's: the
eval's segment command for the cut precision and recall of the stream.
"""
import json
import subprocess
import sys


def stream_pieces(word, offsets):
    cuts = sorted({begin for begin, end in offsets if end > begin and 0 < begin < len(word)})
    bounds = [0] + cuts + [len(word)]
    return [word[a:b] for a, b in zip(bounds, bounds[1:])]


def main(argv):
    if len(argv) not in (4, 5):
        sys.stderr.write(__doc__)
        return 2
    morpheus, tokdir, words_path = argv[1:4]
    with open(words_path, encoding="utf-8") as f:
        words = [line.rstrip("\n") for line in f]
    run = subprocess.run([morpheus, "encode", "--model", tokdir, "--output-format", "json", words_path],
                         check=False, capture_output=True, text=True)
    if run.returncode != 0:
        sys.stderr.write(run.stderr)
        return 1
    rows = run.stdout.splitlines()
    if len(rows) != len(words):
        sys.stderr.write(f"stream_segment: {len(rows)} encodings for {len(words)} words\n")
        return 1
    out = []
    for word, row in zip(words, rows):
        offsets = json.loads(row)["offsets"]
        out.append(word + "\t" + " ".join(stream_pieces(word, offsets)) + "\n")
    text = "".join(out)
    if len(argv) == 5:
        with open(argv[4], "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
