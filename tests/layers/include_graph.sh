#!/usr/bin/env bash
# include_graph.sh SOURCE_DIR
# The folders' include graph points one way. Each folder of the sources sits in one layer below;
# a file may include files of its own folder and of folders in lower layers only, so an include
# from a lower layer up to a higher one, or between two folders of one layer, fails, and the graph
# can have no cycle. Also: the tokenizer directory's format (tokenizer/directory_format.h) and the
# Tokenizer class (tokenizer/tokenizer.h) do not include each other. Reads every `#include
# "folder/…"` of the .h and .cc files; prints the folder graph; exits 1 naming each offending
# include (file:line).
set -u
[ $# -eq 1 ] || { echo "usage: include_graph.sh SOURCE_DIR"; exit 2; }
src=$1
# Lowest first; folders on one line are one layer (neither includes the other).
layers=(
  "core"
  "morph"
  "tokenizer"
  "eval model pack exporter"
  "engine train lm"
  "config infer python"
  "embed"
  "tools"
)
declare -A rank
for i in "${!layers[@]}"; do
  for folder in ${layers[$i]}; do rank[$folder]=$i; done
done
status=0
for folder in ${layers[*]}; do
  [ -d "$src/$folder" ] || { echo "FAIL $folder: no such folder in $src"; status=1; continue; }
  edges=""
  while IFS=: read -r file line target; do
    [ -n "$file" ] || continue
    to=${target%%/*}
    [ "$to" = "$folder" ] && continue
    [ -n "${rank[$to]+x}" ] || continue  # third-party or not a layered folder (tests/support)
    edges="$edges $to"
    if [ "${rank[$to]}" -ge "${rank[$folder]}" ]; then
      echo "FAIL ${file#"$src"/}:$line includes $target (layer ${rank[$to]}: not below $folder's ${rank[$folder]})"
      status=1
    fi
  done < <(grep -rnoE '^#include "[a-z_]+/[^"]+"' "$src/$folder" --include='*.h' --include='*.cc' |
    sed -E 's/#include "([^"]+)"/\1/')
  echo "$folder (layer ${rank[$folder]}) -> $(printf '%s\n' $edges | sort -u | tr '\n' ' ')"
done
for pair in "tokenizer/tokenizer.h tokenizer/directory_format.h" \
  "tokenizer/directory_format.h tokenizer/tokenizer.h"; do
  set -- $pair
  if grep -n "^#include \"$2\"" "$src/$1"; then
    echo "FAIL $1 includes $2 (the directory's format and the Tokenizer class stay apart)"
    status=1
  fi
done
exit $status
