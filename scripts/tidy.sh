#!/usr/bin/env bash
# Runs clang-tidy (checks in .clang-tidy) on the C++ files changed against a base, with the ci
# preset's compile commands. Exits 1 when clang-tidy reports anything.
# Usage: scripts/tidy.sh [<ref> | --all]
#   (none)  the files changed since HEAD~1, committed or not
#   <ref>   the files changed since `git merge-base HEAD <ref>`, committed or not
#   --all   every C++ file the ci preset compiles
# A changed header is checked through its own .cc (or else one .cc that includes it).
# Needs build/ci/compile_commands.json: `bash scripts/build.sh ci` (or `cmake --preset ci`).
# Cost per file: ~3 s torch-free, 20-60 s with LibTorch headers (parsing them and running the
# checks over their declarations); --all takes ~20 min on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=build/ci

all=0
if [ "${1:-}" = --all ]; then
  all=1
else
  ref=${1:-HEAD~1}
  if [ $# -gt 0 ]; then
    base=$(git merge-base HEAD "$ref") || { echo "tidy: no merge base of HEAD and $ref" >&2; exit 2; }
  else
    base=$(git rev-parse --verify -q "$ref^{commit}") ||
      { echo "tidy: $ref does not exist (shallow clone?); pass a ref or --all" >&2; exit 2; }
  fi
  mapfile -t changed < <(git diff --name-only --diff-filter=d "$base" -- '*.cc' '*.h')
  if [ ${#changed[@]} -eq 0 ]; then
    echo "tidy: no C++ file changed since ${base:0:12}"
    exit 0
  fi
fi

if [ ! -f "$build/compile_commands.json" ]; then
  echo "tidy: $build/compile_commands.json is missing. HINT: bash scripts/build.sh ci" >&2
  exit 2
fi
# The ci preset is a unity build: its compile commands name the generated unity_*.cxx files.
# Expand each into one command per source it includes (same flags) for clang-tidy.
mkdir -p "$build/tidy"
python3 - "$build/compile_commands.json" "$build/tidy/compile_commands.json" <<'EOF'
import json, os, re, sys
src, dst = sys.argv[1], sys.argv[2]
entries, seen = [], set()
for e in json.load(open(src)):
    f = e["file"]
    files = [f]
    if re.search(r"/Unity/unity_\d+_cxx\.cxx$", f):
        files = re.findall(r'^#include "([^"]+)"', open(f).read(), re.M)
    for s in files:
        if s not in seen:
            seen.add(s)
            entries.append({"directory": e["directory"], "file": s,
                            "command": e["command"].replace(f, s)})
with open(dst + ".tmp", "w") as out:
    json.dump(entries, out, indent=1)
os.replace(dst + ".tmp", dst)
EOF
mapfile -t compiled < <(python3 -c 'import json, sys
for e in json.load(open(sys.argv[1])): print(e["file"])' "$build/tidy/compile_commands.json" |
  sed "s|^$root/||" | sort)

files=()
if [ $all = 1 ]; then
  files=("${compiled[@]}")
else
  # grep reads all its input: with -q it could stop early and fail the pipe (pipefail).
  is_compiled() { printf '%s\n' "${compiled[@]}" | grep -xF "$1" > /dev/null; }
  for f in "${changed[@]}"; do
    unit=$f
    if [[ $f == *.h ]]; then
      unit=${f%.h}.cc
      if ! is_compiled "$unit"; then
        unit=$(git grep -l -F "#include \"$f\"" -- '*.cc' | while read -r c; do
          if is_compiled "$c"; then echo "$c"; break; fi
        done || true)
      fi
    fi
    if [ -n "$unit" ] && is_compiled "$unit"; then
      files+=("$unit")
    else
      echo "tidy: skipping $f (no translation unit of the ci preset compiles it)"
    fi
  done
  [ ${#files[@]} -gt 0 ] || exit 0
  mapfile -t files < <(printf '%s\n' "${files[@]}" | sort -u)
fi

echo "tidy: clang-tidy on ${#files[@]} file(s), $(nproc) at a time"
start=$(date +%s)
export TIDY_DB="$build/tidy" TIDY_ROOT="$root"
tidy_one() {
  local out
  # -Wno-ignored-optimization-argument: clang does not know GCC's -fno-fat-lto-objects (pybind11).
  if out=$(clang-tidy -p "$TIDY_DB" --quiet --warnings-as-errors='*' \
    --header-filter="^$TIDY_ROOT/" --extra-arg=-Wno-ignored-optimization-argument "$1" 2>&1); then
    return 0
  fi
  printf '%s\n' "$out" | grep -v -E '^[0-9]+ warnings? (and [0-9]+ errors? )?generated\.$'
  return 1
}
export -f tidy_one
status=0
printf '%s\n' "${files[@]}" | xargs -P "$(nproc)" -I{} bash -c 'tidy_one "$1"' _ {} || status=1
if [ $status -ne 0 ]; then
  echo "tidy: clang-tidy found problems (above). HINT: fix them; the naming rules and thresholds" \
    "are in .clang-tidy. For a deliberate exception, end the line with" \
    "// NOLINT(<check-name>) and say why in a comment." >&2
  exit 1
fi
echo "tidy: ${#files[@]} file(s) clean in $(($(date +%s) - start)) s"
