#!/usr/bin/env bash
# include_graph_detects.sh INCLUDE_GRAPH
# include_graph.sh can tell: on a tree of its (empty) folders it passes, and each of these alone
# makes it fail with its reason: a torch-free folder including a LibTorch folder's file, a
# torch-free folder including a LibTorch header, an include from a lower layer up, a LibTorch
# target built in a torch-free folder. Exits 1 naming the case it missed.
set -u
[ $# -eq 1 ] || { echo "usage: include_graph_detects.sh INCLUDE_GRAPH"; exit 2; }
graph=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
tree() {  # a fresh tree of every layered folder
  rm -rf "$tmp/src"
  while read -r folder; do mkdir -p "$tmp/src/$folder"; done < <(bash "$graph" --folders)
  touch "$tmp/src/tokenizer/tokenizer.h" "$tmp/src/tokenizer/directory_format.h"
}
expect() {  # expect NAME REASON: the check fails on the tree, saying REASON
  local out
  if out=$(bash "$graph" "$tmp/src" 2>&1); then
    echo "FAIL $1: include_graph.sh passed"; status=1
  elif ! grep -q "$2" <<<"$out"; then
    echo "FAIL $1: no \"$2\" in:"; echo "$out" | grep FAIL; status=1
  else
    echo "ok $1"
  fi
}
tree
if out=$(bash "$graph" "$tmp/src" 2>&1); then echo "ok clean tree"; else
  echo "FAIL the clean tree fails:"; echo "$out"; status=1; fi
tree; echo '#include "model/morpheus.h"' > "$tmp/src/engine/bad.h"
expect "torch-free includes a LibTorch folder" "a LibTorch folder, from the torch-free engine/"
tree; echo '#include "model/morpheus.h"' > "$tmp/src/tools/bad.cc"
expect "the torch-free CLI includes a LibTorch folder" "a LibTorch folder, from the torch-free tools/"
tree; echo '#include <torch/torch.h>' > "$tmp/src/tokenizer/bad.cc"
expect "torch-free includes a LibTorch header" "a LibTorch header in the torch-free tokenizer/"
tree; echo '#include "engine/model.h"' > "$tmp/src/tokenizer/bad.h"
expect "an include up a layer" "not below tokenizer"
tree; echo '#include "train/trainer.h"' > "$tmp/src/model/bad.cc"
expect "a LibTorch include up a layer" "not below model"
tree; echo 'morpheus_torch_target(x)' > "$tmp/src/prepare/CMakeLists.txt"
expect "a LibTorch target in a torch-free folder" "a LibTorch target in a torch-free folder"
exit $status
