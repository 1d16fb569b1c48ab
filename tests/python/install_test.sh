#!/usr/bin/env bash
# install_test.sh PYTHON SOURCE_DIR BUILD_DIR TOKENIZER_DIR
# `pip install --no-build-isolation SOURCE_DIR` into a fresh venv of PYTHON, installing from the
# built tree BUILD_DIR (MORPHEUS_CMAKE_BUILD_DIR, setup.py); then, from another directory with
# no build tree on PATH or PYTHONPATH: the package imports from the venv with its version,
# encodes and embeds words outside the table of TOKENIZER_DIR on the engine without loading
# LibTorch (no libtorch/libc10 in the process's maps), and its binaries default to the installed
# lexicons.
set -u
fail() { echo "FAIL: $*"; exit 1; }
[ $# = 4 ] || fail "usage: install_test.sh PYTHON SOURCE_DIR BUILD_DIR TOKENIZER_DIR"
py=$1 src=$2 build=$3 tok=$4
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
"$py" -m venv --system-site-packages "$work/v" || fail venv
start=$(date +%s)
MORPHEUS_CMAKE_BUILD_DIR=$build "$work/v/bin/pip" install --no-build-isolation --no-deps -q \
  "$src" > "$work/pip.log" 2>&1 || { cat "$work/pip.log"; fail "pip install"; }
echo "pip install: $(( $(date +%s) - start )) s"
cd "$work" || fail cd
clean=(env -i HOME="$work" PATH=/usr/bin:/bin)
site=$("${clean[@]}" "$work/v/bin/python" -c \
  "import morpheus, os; print(os.path.dirname(morpheus.__file__))") || fail "import morpheus"
case $site in "$work/v/"*) ;; *) fail "morpheus imported from $site, not the venv" ;; esac
"${clean[@]}" "$work/v/bin/python" - "$tok" "$work/v" <<'PY' || fail "installed Tokenizer"
import sys
import morpheus
tok_dir, venv = sys.argv[1], sys.argv[2]
print("morpheus", morpheus.__version__, morpheus.git_describe)
assert morpheus.binary("morpheus").startswith(venv), morpheus.binary("morpheus")
with morpheus.Tokenizer(tok_dir) as tok:
    text = "Zqxwvzqxwlarımızdan kuşkulandık"
    assert tok.decode(tok.encode(text)) == text
    assert tok.model_runs >= 1, tok.model_runs
rows = morpheus.Embedder(tok_dir).embed(["kitap", "zqxwvzqxw"])
assert rows.shape[0] == 2, rows.shape
maps = open("/proc/self/maps").read()
assert "libtorch" not in maps and "libc10" not in maps, "LibTorch loaded"
PY
[ "$("${clean[@]}" "$work/v/bin/morpheus" --version)" = "$("$build/tools/morpheus" --version)" ] \
  || fail "the morpheus command of the venv is not this build"
help=$("${clean[@]}" "$work/v/bin/morpheus" export --help) || fail "morpheus export --help"
lexicons="$site/share/morpheus/lexicons"
echo "$help" | grep -q "$lexicons/turkish_dictionary.txt" ||
  fail "export's default root lexicon is not in $lexicons: $help"
for f in turkish_dictionary.txt suffixes.txt; do
  [ -s "$lexicons/$f" ] || fail "no $f in $lexicons"
done
echo ok
