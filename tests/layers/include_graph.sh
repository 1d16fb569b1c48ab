#!/usr/bin/env bash
# include_graph.sh SOURCE_DIR
# The folders' include graph points one way, and LibTorch is a property of a folder. Each folder
# of the sources (a nested one such as baselines/cbpe or tools/torch counts as a folder of its
# own) sits in one layer below; a file may include files of its own folder and of folders in lower
# layers only, so an include from a lower layer up to a higher one, or between two folders of one
# layer, fails, and the graph can have no cycle. The folders below the TORCH line are the LibTorch
# ones: a file of a folder above it includes no LibTorch header (<torch/…>, <ATen/…>, <c10/…>) and
# no file of a LibTorch folder, and a folder's CMakeLists.txt builds only its kind of target
# (morpheus_torch_target in a LibTorch folder, TORCH_FREE targets elsewhere). Also: the
# tokenizer directory's format (tokenizer/directory_format.h) and the Tokenizer class
# (tokenizer/tokenizer.h) do not include each other. Reads every `#include` of the .h and .cc
# files; prints the folder graph; exits 1 naming each offending include (file:line) or target.
# include_graph.sh --folders prints the layered folders, one per line.
set -u
[ $# -eq 1 ] || { echo "usage: include_graph.sh SOURCE_DIR | --folders"; exit 2; }
src=$1
# Lowest first; folders on one line are one layer (neither includes the other).
layers=(
  "core"
  "morph"
  "tokenizer"
  "config eval exporter baselines/hybrid baselines/cbpe pack embed"
  "engine baselines/plain prepare lm_data"
  "baselines/spm python"
  "tools"
  TORCH
  "model"
  "train infer"
  "lm exporter/torch"
  "tools/torch"
)
declare -A rank torch
kind=torch-free layer=0
for line in "${layers[@]}"; do
  [ "$line" = TORCH ] && { kind=libtorch; continue; }
  for folder in $line; do rank[$folder]=$layer torch[$folder]=$kind; done
  layer=$((layer + 1))
done
if [ "$src" = --folders ]; then printf '%s\n' "${!rank[@]}" | sort; exit 0; fi
status=0
fail() { echo "FAIL $*"; status=1; }
for folder in "${!rank[@]}"; do
  dir=$src/$folder
  [ -d "$dir" ] || { fail "$folder: no such folder in $src"; continue; }
  edges=""
  # This folder's own files (not those of a nested folder).
  while IFS=: read -r file line target; do
    [ -n "$file" ] || continue
    where=${file#"$src"/}:$line
    case $target in
      \<torch/* | \<ATen/* | \<c10/*)
        [ "${torch[$folder]}" = libtorch ] ||
          fail "$where includes $target (a LibTorch header in the torch-free $folder/)"
        continue ;;
      \<*) continue ;;
    esac
    target=${target//\"/}
    to=$(dirname "$target")
    [ "$to" = "$folder" ] && continue
    [ -n "${rank[$to]+x}" ] || continue  # third-party or not a layered folder (tests/support)
    edges="$edges $to"
    if [ "${torch[$folder]}" = torch-free ] && [ "${torch[$to]}" = libtorch ]; then
      fail "$where includes $target (a LibTorch folder, from the torch-free $folder/)"
    elif [ "${rank[$to]}" -ge "${rank[$folder]}" ]; then
      fail "$where includes $target (layer ${rank[$to]}: not below $folder's ${rank[$folder]})"
    fi
  done < <(find "$dir" -maxdepth 1 -type f \( -name '*.h' -o -name '*.cc' \) -print0 |
    xargs -0 -r grep -HnoE '^#include ("[a-z_]+(/[a-z_]+)*/[^"/]+"|<(torch|ATen|c10)/[^>]+>)' |
    sed -E 's/:#include /:/')
  if [ -f "$dir/CMakeLists.txt" ]; then
    if [ "${torch[$folder]}" = torch-free ] && grep -q 'morpheus_torch_target' "$dir/CMakeLists.txt"; then
      fail "$folder/CMakeLists.txt builds a LibTorch target in a torch-free folder"
    elif [ "${torch[$folder]}" = libtorch ] && grep -q 'TORCH_FREE' "$dir/CMakeLists.txt"; then
      fail "$folder/CMakeLists.txt builds a torch-free target in a LibTorch folder"
    fi
  fi
  echo "$folder (layer ${rank[$folder]}, ${torch[$folder]}) -> $(printf '%s\n' $edges | sort -u | tr '\n' ' ')"
done
for pair in "tokenizer/tokenizer.h tokenizer/directory_format.h" \
  "tokenizer/directory_format.h tokenizer/tokenizer.h"; do
  set -- $pair
  if grep -n "^#include \"$2\"" "$src/$1"; then
    fail "$1 includes $2 (the directory's format and the Tokenizer class stay apart)"
  fi
done
exit $status
