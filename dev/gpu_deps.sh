#!/usr/bin/env bash
# Fills .gpu/ (git-ignored) with what dev/gpu_check.sh needs on a GPU machine that has pip
# PyTorch (LibTorch, CMake, ninja, nvcc) but none of Debian's development packages and no network.
# Runs on the Debian machine where scripts/setup.sh ran and `morpheus` is built.
#   dev/gpu_deps.sh [--reference PATH] [--sentences N] [--morpheus BIN]
#     --reference PATH  the reference implementation: a checkout of
#                       github.com/lonewolf-rd/TurkishMorpheus or its git directory; without it,
#                       a shallow clone is tried, and without one the reference row is skipped
#     --sentences N     npm corpus sentences to prepare (default 5000)
#     --morpheus BIN    the morpheus front (default build/dev/tools/morpheus)
# Writes:
#   .gpu/prefix/       nlohmann-json and CLI11 headers with their CMake package files (a prefix
#                      for CMAKE_PREFIX_PATH)
#   .gpu/zlib/         zlib headers and libz.so.1 (used when the GPU machine has no libz.so.1)
#   .gpu/gloo/include  gloo headers (used when LibTorch's include directory has none)
#   .gpu/data/prep     `morpheus prepare` of the first N npm corpus sentences (every word kept)
#   .gpu/data/new_words.txt  word types of the other corpus lines that the prepared vocabulary
#                      lacks (one per line, at most 50,000): input of the new-word speed row
#   .gpu/reference/src the reference's Python files its trainer imports (read at run time only)
# and prints the sizes: what travels to the GPU machine (tracked and untracked files plus the
# carried .gpu/) must stay under 64 MiB.
set -euo pipefail
cd "$(dirname "$0")/.."
reference="" sentences=5000 morpheus=build/dev/tools/morpheus
while [ $# -gt 0 ]; do
  case $1 in
    --reference) reference=$2; shift 2 ;;
    --sentences) sentences=$2; shift 2 ;;
    --morpheus) morpheus=$2; shift 2 ;;
    *) echo "usage: dev/gpu_deps.sh [--reference PATH] [--sentences N] [--morpheus BIN]" >&2
       exit 2 ;;
  esac
done
die() { echo "gpu_deps: $*" >&2; exit 1; }
out=.gpu
corpus=node_modules/nlptoolkit-corpus/corpus.txt
[ -x "$morpheus" ] || die "no $morpheus (bash scripts/build.sh dev morpheus)"
[ -f "$corpus" ] || die "no $corpus (bash scripts/setup.sh installs the npm data packages)"
mkdir -p "$out"

# Header-only libraries with their CMake package files, in a prefix layout (their *Targets.cmake
# compute the prefix three directories above themselves).
rm -rf "$out/prefix" && mkdir -p "$out/prefix/include" "$out/prefix/share/cmake"
for pkg in nlohmann:nlohmann_json:nlohmann-json3-dev CLI:CLI11:libcli11-dev; do
  IFS=: read -r inc cmake deb <<< "$pkg"
  if [ ! -d "/usr/include/$inc" ] || [ ! -d "/usr/share/cmake/$cmake" ]; then
    die "missing /usr/include/$inc or /usr/share/cmake/$cmake (apt-get install $deb)"
  fi
  cp -r "/usr/include/$inc" "$out/prefix/include/"
  cp -r "/usr/share/cmake/$cmake" "$out/prefix/share/cmake/"
done

# zlib (morpheus_tokenizer reads .gz lexicons): headers and the shared library.
rm -rf "$out/zlib" && mkdir -p "$out/zlib/include" "$out/zlib/lib"
cp /usr/include/zlib.h /usr/include/zconf.h "$out/zlib/include/" ||
  die "no zlib headers (apt-get install zlib1g-dev)"
cp "$(readlink -f /usr/lib/x86_64-linux-gnu/libz.so)" "$out/zlib/lib/libz.so.1"

# gloo headers for c10d's ProcessGroupGloo.hpp (train/distributed.cc); gpu_check.sh uses them
# only when LibTorch ships none.
rm -rf "$out/gloo" && mkdir -p "$out/gloo/include"
cp -r /usr/include/gloo "$out/gloo/include/" || die "no gloo headers (apt-get install libgloo-dev)"

# Prepared data: the first N sentences of the npm corpus.
mkdir -p "$out/data"
head -n "$sentences" "$corpus" > "$out/data/corpus_slice.txt"
t0=$(date +%s)
# Every word and root kept (min count 1): SGNS and root tables nearer the paper's sizes.
"$morpheus" -q prepare --corpus "$out/data/corpus_slice.txt" --out "$out/data/prep" \
  --set prepare.word_min_count=1 --set prepare.root_min_count=1 > /dev/null
echo "prepared $sentences sentences in $(( $(date +%s) - t0 )) s: $(du -sh "$out/data/prep" | cut -f1)"
rm "$out/data/corpus_slice.txt"

# New word types: letter runs of the other corpus lines, lower-cased as the corpus is, that the
# prepared vocabulary lacks; shuffled with a fixed seed.
python3 - "$corpus" "$sentences" "$out/data/prep/words.tsv" "$out/data/new_words.txt" <<'EOF'
import random, re, sys
corpus, skip, vocab_path, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
known = {line.split("\t", 1)[0] for line in open(vocab_path, encoding="utf-8")}
new = set()
with open(corpus, encoding="utf-8") as f:
    for i, line in enumerate(f):
        if i >= skip:
            new.update(w for w in re.findall(r"[^\W\d_]+", line) if w not in known)
words = sorted(new)
random.Random(7).shuffle(words)
with open(out, "w", encoding="utf-8") as f:
    f.write("".join(w + "\n" for w in words[:50000]))
print(f"new word types: {min(len(words), 50000)} of {len(words)}")
EOF

# The reference's trainer and what it imports (never committed: .gpu/ is ignored).
ref_files="src/__init__.py src/common/__init__.py src/common/logger.py src/common/text_utils.py
src/common/kalbur.py src/common/providers/__init__.py src/common/providers/logger_provider.py
src/model_development/__init__.py src/model_development/model/__init__.py
src/model_development/model/boundary_detector.py src/model_development/model/char_encoder.py
src/model_development/model/mlm_head.py src/model_development/model/morpheus.py
src/model_development/model/segment_encoder.py src/model_development/training/__init__.py
src/model_development/training/callbacks.py src/model_development/training/dataset.py
src/model_development/training/loss.py src/model_development/training/trainer.py"
tmp=""
if [ -z "$reference" ]; then
  tmp=$(mktemp -d)
  if git clone -q --depth 1 https://github.com/lonewolf-rd/TurkishMorpheus "$tmp/ref" 2>/dev/null
  then reference=$tmp/ref
  fi
fi
rm -rf "$out/reference"
if [ -n "$reference" ]; then
  for f in $ref_files; do
    mkdir -p "$out/reference/$(dirname "$f")"
    if [ -f "$reference/$f" ]; then
      cp "$reference/$f" "$out/reference/$f"
    else
      git --git-dir="$reference" show "HEAD:$f" > "$out/reference/$f" ||
        die "$reference has no $f"
    fi
  done
  echo "reference: $(echo "$ref_files" | wc -w) files from $reference"
else
  echo "reference: not found (pass --reference PATH); gpu_check.sh will skip its row"
fi
[ -z "$tmp" ] || rm -rf "$tmp"

# The commit the data was made at (the GPU machine's copy has no .git).
git describe --always --dirty > "$out/commit.txt" 2> /dev/null || echo unknown > "$out/commit.txt"

# Sizes: everything that travels must stay under 64 MiB.
carried=$(du -sb "$out" | cut -f1)
tracked=$(git ls-files -z | xargs -0 stat -c %s 2>/dev/null | awk '{s += $1} END {print s + 0}')
untracked=$(git ls-files -z --others --exclude-standard | xargs -0 -r stat -c %s |
  awk '{s += $1} END {print s + 0}')
mib() { awk -v b="$1" 'BEGIN {printf "%.1f MiB", b / 1048576}'; }
echo "$out: $(mib "$carried"); tracked files: $(mib "$tracked"); untracked, not ignored: $(mib "$untracked")"
total=$((carried + tracked + untracked))
echo "travels: $(mib "$total") of 64 MiB"
[ "$total" -lt $((64 * 1048576)) ] || die "over 64 MiB would travel: prepare fewer --sentences"
