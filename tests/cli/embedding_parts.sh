#!/usr/bin/env bash
# embedding_parts.sh MORPHEUS PREPARE_DIR CONFIG
# The parts of a word vector (engine/embedding_layout.h) through the CLI, on a tiny model (2
# steps): export writes the root-inflection layout (morpheus.json, tokenizer-info, the model
# card); `embed --part root|inflection` are the columns of `--part full`; an unknown part is exit
# 1 naming the directory's parts; a directory without the entry (an older export) has one part,
# full, of the model's width; `neighbors --part` and `index build --part --model` rank by the
# part's columns alone.
set -u
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"
fail() { echo "FAIL: $*"; exit 1; }
tiny_model_test embedding_parts.sh "$@"
"$m" -q export --checkpoint "$dir/run/final" --data "$dir/data" --out "$dir/tok" \
  --vocab-size 2000 --min-count 1 --inflection-weight 0.5 || fail export
"$m" -q tokenizer-info --model "$dir/tok" > "$dir/info" || fail tokenizer-info
cut -f1 "$dir/data/words.tsv" | head -n 60 > "$dir/words"
printf 'kitaplarımızdan\nevlerde\n' >> "$dir/words"
for part in full root inflection; do
  "$m" -q embed --model "$dir/tok" --words "$dir/words" --out "$dir/$part.npy" --part "$part" ||
    fail "embed --part $part"
done
/usr/bin/python3 - "$dir" <<'PY' || fail "the parts' columns"
import json, sys
import numpy as np
d = sys.argv[1]
layout = json.load(open(f"{d}/tok/morpheus.json"))["embedding"]
info = json.load(open(f"{d}/info"))["embedding"]
assert info == layout, (info, layout)
assert layout["pooling"] == "root-inflection" and layout["inflection_weight"] == 0.5, layout
(root, rdim), (infl, idim) = [(p["name"], p["dim"]) for p in layout["parts"]]
assert (root, infl) == ("root", "inflection") and idim == 2 * rdim, layout
full, r, i = (np.load(f"{d}/{p}.npy") for p in ("full", "root", "inflection"))
n = len(open(f"{d}/full.vocab").read().splitlines())
assert n >= 10 and full.shape == (n, layout["dim"]) == (n, rdim + idim), (n, full.shape)
assert np.array_equal(full[:, :rdim], r) and np.array_equal(full[:, rdim:], i)
np.testing.assert_allclose(np.linalg.norm(r, axis=1), 1, atol=1e-5)
np.testing.assert_allclose(np.linalg.norm(i[:, :rdim], axis=1), 0.5, atol=1e-5)
card = open(f"{d}/tok/README.md").read()
assert f"root [{rdim}], inflection [{idim}]" in card, card
PY
"$m" embed --model "$dir/tok" --words "$dir/words" --out "$dir/x.npy" --part stem 2> "$dir/err" &&
  fail "--part stem accepted"
grep -q "full, root, inflection" "$dir/err" || { cat "$dir/err"; fail "no list of the parts"; }
# An older export: no "embedding" entry, one part.
cp -r "$dir/tok" "$dir/old"
/usr/bin/python3 - "$dir/old/morpheus.json" <<'PY' || fail "dropping the entry"
import json, sys
c = json.load(open(sys.argv[1]))
del c["embedding"]
json.dump(c, open(sys.argv[1], "w"), indent=2)
PY
"$m" -q embed --model "$dir/old" --words "$dir/words" --out "$dir/old.npy" || fail "old embed"
head -c 128 "$dir/old.npy" | grep -aq "'shape': ($(wc -l < "$dir/old.vocab"), $(/usr/bin/python3 -c "
import json; print(json.load(open('$dir/tok/morpheus.json'))['embedding']['parts'][0]['dim'])"))" ||
  fail "an older directory's vectors are not of the model's width"
"$m" embed --model "$dir/old" --words "$dir/words" --out "$dir/x.npy" --part root 2> "$dir/err" &&
  fail "--part root accepted by a one-part directory"
grep -q "parts: full$" "$dir/err" || { cat "$dir/err"; fail "the one part is not named"; }
"$m" -q tokenizer-info --model "$dir/old" | grep -q '"pooling": "mean"' || fail "old layout info"
# neighbors and index build by one part.
"$m" neighbors --model "$dir/tok" --vocab "$dir/words" --query evlerde -k 5 --part root |
  cut -f1 > "$dir/nb_model" || fail "neighbors --part root"
"$m" neighbors --index "$dir/root.npy" --query evlerde -k 5 | cut -f1 > "$dir/nb_index" ||
  fail "neighbors --index root.npy"
cmp -s "$dir/nb_model" "$dir/nb_index" || { paste "$dir/nb_model" "$dir/nb_index"; fail "ranking"; }
"$m" -q index build --embeddings "$dir/full.npy" --model "$dir/tok" --part root --type flat \
  --out "$dir/root.faiss" || fail "index build --part root"
"$m" neighbors --faiss "$dir/root.faiss" --query evlerde -k 5 | cut -f1 > "$dir/nb_faiss" ||
  fail "neighbors --faiss"
cmp -s "$dir/nb_model" "$dir/nb_faiss" || { paste "$dir/nb_model" "$dir/nb_faiss"; fail "faiss"; }
"$m" index build --embeddings "$dir/full.npy" --part root --out "$dir/x.faiss" 2> "$dir/err" &&
  fail "index build --part without --model accepted"
grep -q -- "--model" "$dir/err" || { cat "$dir/err"; fail "no --model hint"; }
"$m" index build --embeddings "$dir/root.npy" --model "$dir/tok" --part root \
  --out "$dir/x.faiss" 2> "$dir/err" && fail "a root file taken for full vectors"
grep -q "root.npy" "$dir/err" || { cat "$dir/err"; fail "the file is not named"; }
echo ok
