#!/usr/bin/env bash
# stream_segment.sh MORPHEUS REPO
# scripts/stream_segment.py on the format-3 fixture directory (tests/data/format3_bpe: no merges,
# so the stream's cuts are the segmenter's): its word<TAB>pieces equal `morpheus segment`'s for
# lower-case words, and the pieces of every word concatenate to it (capitalised words included).
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
python3 "$repo/scripts/stream_segment.py" "$m" "$tok" "$dir/words" "$dir/stream" || fail "stream_segment"
"$m" segment --model "$tok" "$dir/words" > "$dir/segment" || fail "segment"
cmp "$dir/stream" "$dir/segment" || { diff "$dir/stream" "$dir/segment" | head; fail "cuts differ"; }
printf 'Kitaplarımızdan\nİSTANBUL\nkitap\n' > "$dir/cased"
python3 "$repo/scripts/stream_segment.py" "$m" "$tok" "$dir/cased" > "$dir/cased.out" || fail "cased"
python3 - "$dir/cased.out" <<'PY' || fail "pieces do not spell their word"
import sys
for line in open(sys.argv[1], encoding="utf-8"):
    word, pieces = line.rstrip("\n").split("\t")
    assert "".join(pieces.split(" ")) == word, line
PY
echo "ok"
