# shellcheck shell=bash
# lib.sh: helpers sourced by the shell tests (tests/cli/*.sh). Not run on its own.
#
#   skip_or_fail MESSAGE...  the one way a shell test gives up on a missing prerequisite (a file
#                            of the shared data, an installed tool): exits 77 (ctest SKIP, with
#                            SKIP_RETURN_CODE 77) or, when CI=true, prints FAIL and exits 1.
#   require_file PATH...     skip_or_fail unless every PATH exists.
#   shared_data_dir          prints $MORPHEUS_SHARED_DATA, or else <repo>/../shared/data (the same
#                            default as tests/support/test_support.cc).
#   tiny_model M PREP CONFIG DIR
#                            `M prepare` of the tiny corpus PREP (tests/data/prepare) into DIR/data
#                            and `M train` of CONFIG for 2 steps into DIR/run (DIR/run/final);
#                            returns 1 naming the step that failed.
#   tiny_model_test NAME "$@"
#                            the start of a test of a tiny model, NAME MORPHEUS PREPARE_DIR
#                            CONFIG: checks the arguments, sets m, prep, config and dir (a
#                            temp directory removed at exit) and runs tiny_model into dir.
#   ud_tune_systems M UD_TYPES_GOLD DIR
#                            the first 40 words of the UD types tune part (DIR/gold.tsv, header
#                            kept) and three segmentations of them keyed by the study scripts'
#                            lower-cased word: DIR/exact.seg (the gold's first alternative),
#                            DIR/whole.seg (whole words), DIR/rootcut.seg (the first alternative
#                            with a cut after the root's first letter); returns 1 on failure.

morpheus_repo_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

skip_or_fail() {
  if [ "${CI:-}" = true ]; then
    echo "FAIL: required in CI (CI=true) but missing: $*"
    exit 1
  fi
  echo "skipped: not available: $*"
  exit 77
}

require_file() {
  local f
  for f in "$@"; do
    [ -e "$f" ] || skip_or_fail "$f"
  done
}

shared_data_dir() {
  echo "${MORPHEUS_SHARED_DATA:-$morpheus_repo_dir/../shared/data}"
}

tiny_model() {
  local m=$1 prep=$2 config=$3 dir=$4
  "$m" prepare --corpus "$prep/corpus.txt" --teacher "$prep/teacher.tsv" --out "$dir/data" \
    --set prepare.root_lexicon="$prep/roots.txt" --set prepare.suffix_lexicon="$prep/suffixes.txt" \
    --set prepare.word_min_count=1 --set prepare.root_min_count=1 > /dev/null ||
    { echo "tiny_model: prepare failed"; return 1; }
  "$m" train --data "$dir/data" --config "$config" --out "$dir/run" --device cpu \
    --set train.max_steps=2 --set train.threads=1 > /dev/null ||
    { echo "tiny_model: train failed"; return 1; }
}

tiny_model_test() {
  local name=$1
  shift
  [ $# = 3 ] || { echo "FAIL: usage: $name MORPHEUS PREPARE_DIR CONFIG"; exit 1; }
  m=$1 prep=$2 config=$3
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
  tiny_model "$m" "$prep" "$config" "$dir" || { echo "FAIL: tiny model"; exit 1; }
}

ud_tune_systems() {
  local m=$1 gold=$2 dir=$3
  "$m" -q gold-split --gold ud_types --part tune "$gold" -o "$dir/tune.tsv" ||
    { echo "ud_tune_systems: gold-split failed"; return 1; }
  head -n 41 "$dir/tune.tsv" > "$dir/gold.tsv"
  python3 - "$dir" "$morpheus_repo_dir/studies" <<'PY' || { echo "ud_tune_systems: failed"; return 1; }
import sys
d = sys.argv[1]
sys.path.insert(0, sys.argv[2])
from boundary_breakdown import scoring_form
rows = [l.rstrip("\n").split("\t") for l in open(f"{d}/gold.tsv", encoding="utf-8")][1:]
systems = {"exact": [], "whole": [], "rootcut": []}
for row in rows:
    word = scoring_form(row[0])
    pieces = scoring_form(row[3].split(" ; ")[0]).split("|")
    systems["exact"].append(word + "\t" + " ".join(pieces))
    systems["whole"].append(word + "\t" + word)
    if len(pieces[0]) >= 2:
        pieces = [pieces[0][:1], pieces[0][1:]] + pieces[1:]
    systems["rootcut"].append(word + "\t" + " ".join(pieces))
for name, lines in systems.items():
    open(f"{d}/{name}.seg", "w", encoding="utf-8").write("\n".join(lines) + "\n")
PY
}
