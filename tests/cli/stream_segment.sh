#!/usr/bin/env bash
# stream_segment.sh MORPHEUS REPO
# studies/stream_segment.py on the format-3 fixture directory (tests/data/format3_bpe: no merges,
# so the stream keeps every cut of the segmenter): for lower-case words its cuts are those of
# `morpheus segment` (the segmenter's pieces) plus the backoff cuts inside pieces the vocabulary
# lacks, and the pieces of every word concatenate to it (capitalised words included).
set -u
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"
fail() { echo "FAIL: $*"; exit 1; }
m=$1 repo=$2
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
tok=$repo/tests/data/format3_bpe
tr ' ' '\n' < "$repo/tests/data/format3_bpe_text.txt" | grep -E '^[a-zçğıöşü]+$' | sort -u |
  head -n 200 > "$dir/words"
[ "$(wc -l < "$dir/words")" -ge 50 ] || fail "too few words"
python3 "$repo/studies/stream_segment.py" "$m" "$tok" "$dir/words" "$dir/stream" || fail "stream_segment"
"$m" segment --model "$tok" "$dir/words" > "$dir/segment" || fail "segment"
python3 - "$dir/stream" "$dir/segment" "$tok/pieces.json" <<'PY' || fail "stream cuts"
import json, sys
vocab = set(json.load(open(sys.argv[3], encoding="utf-8"))["pieces"])
def rows(path):
    return [line.rstrip("\n").split("\t") for line in open(path, encoding="utf-8")]
def cuts(pieces):
    out, pos = set(), 0
    for p in pieces[:-1]:
        pos += len(p)
        out.add(pos)
    return out
same = 0
for (word, stream), (word2, seg) in zip(rows(sys.argv[1]), rows(sys.argv[2])):
    assert word == word2, (word, word2)
    stream, seg = stream.split(" "), seg.split(" ")
    extra = cuts(stream) - cuts(seg)
    assert cuts(seg) <= cuts(stream), (word, stream, seg)  # no merges: every cut kept
    pos = 0
    for p in seg:  # a cut of its own only inside a segmenter piece the vocabulary lacks
        if any(pos < c < pos + len(p) for c in extra):
            assert p not in vocab, (word, p, stream)
        pos += len(p)
    same += not extra
assert same >= len(rows(sys.argv[1])) // 2, same
PY
printf 'Kitaplarımızdan\nİSTANBUL\nkitap\n' > "$dir/cased"
python3 "$repo/studies/stream_segment.py" "$m" "$tok" "$dir/cased" > "$dir/cased.out" || fail "cased"
python3 - "$dir/cased.out" <<'PY' || fail "pieces do not spell their word"
import sys
for line in open(sys.argv[1], encoding="utf-8"):
    word, pieces = line.rstrip("\n").split("\t")
    assert "".join(pieces.split(" ")) == word, line
PY
echo "ok"
