#!/usr/bin/env bash
# retrieval.sh MORPHEUS
# `morpheus neighbors --queries` and `morpheus index build` / `neighbors --faiss` on 400
# generated 16-dimensional vectors (a .vec file; no model needed, every query is in the index):
# the batch answers equal one --query run per query (the first 8); a flat FAISS index and an IVF
# index visiting every list give the exact answers; HNSW finds >= 95 % of the exact top 5; bad
# inputs fail with exit 1 and a message (-k 0 is a usage error, exit 2).
set -u
fail() { echo "FAIL: $*"; exit 1; }
[ $# = 1 ] || fail "usage: retrieval.sh MORPHEUS"
m=$1
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
# 40 clusters of 10 words; deterministic pseudo-random coordinates.
awk 'BEGIN { srand(5); print 400, 16
  for (c = 0; c < 40; c++) for (j = 0; j < 16; j++) centre[c, j] = rand() * 2 - 1
  for (i = 0; i < 400; i++) { line = "w" i
    for (j = 0; j < 16; j++)
      line = line " " sprintf("%.5f", centre[i % 40, j] + 0.3 * (rand() - 0.5))
    print line } }' > "$dir/e.vec"
awk 'NR > 1 && NR % 7 == 0 { print $1 }' "$dir/e.vec" > "$dir/q"
nq=$(wc -l < "$dir/q")
"$m" neighbors --index "$dir/e.vec" --queries "$dir/q" -k 5 > "$dir/batch" || fail "--queries"
[ "$(wc -l < "$dir/batch")" = $(( nq * 5 )) ] || fail "batch line count"
head -n 8 "$dir/q" | while IFS= read -r q; do  # a process per query: the first 8 only
  "$m" neighbors --index "$dir/e.vec" --query "$q" -k 5 | sed "s/^/$q\t/"
done > "$dir/single" || fail "--query"
head -n 40 "$dir/batch" | cmp - "$dir/single" || fail "--queries differs from one --query per query"
q1=$(head -n 1 "$dir/q")
grep -q "^$q1	$q1	" "$dir/batch" && fail "a query is its own neighbour"
"$m" index build --embeddings "$dir/e.vec" --type flat --out "$dir/flat.faiss" || fail "build flat"
[ "$(wc -l < "$dir/flat.vocab")" = 400 ] || fail "flat.vocab lines"
"$m" neighbors --faiss "$dir/flat.faiss" --queries "$dir/q" -k 5 | cut -f1,2 > "$dir/flat" \
  || fail "--faiss flat"
cut -f1,2 "$dir/batch" | cmp - "$dir/flat" || fail "flat index differs from exact"
"$m" index build --embeddings "$dir/e.vec" --type ivf --nlist 4 --out "$dir/ivf.faiss" \
  || fail "build ivf"
"$m" neighbors --faiss "$dir/ivf.faiss" --nprobe 4 --queries "$dir/q" -k 5 | cut -f1,2 \
  | cmp - "$dir/flat" || fail "ivf visiting every list differs from exact"
"$m" index build --embeddings "$dir/e.vec" --type hnsw --out "$dir/hnsw.faiss" || fail "build hnsw"
"$m" neighbors --faiss "$dir/hnsw.faiss" --queries "$dir/q" -k 5 > "$dir/hnsw" \
  || fail "--faiss hnsw"
hits=$(awk -F'\t' 'NR == FNR { want[$1 "\t" $2] = 1; next } ($1 "\t" $2) in want { h++ }
  END { print h + 0 }' "$dir/flat" "$dir/hnsw")
[ $(( hits * 100 )) -ge $(( nq * 5 * 95 )) ] || fail "hnsw recall $hits of $(( nq * 5 ))"
# Bad inputs: exit 1 with a message.
expect() {  # expect TEXT COMMAND...: exit 1 and TEXT on stderr
  local text=$1; shift
  "$@" > /dev/null 2> "$dir/err"; local got=$?
  [ $got = 1 ] || fail "exit $got (want 1): $*"
  grep -qF -- "$text" "$dir/err" || { cat "$dir/err"; fail "no '$text': $*"; }
}
expect "must end in .faiss" "$m" index build --embeddings "$dir/e.vec" --out "$dir/x.idx"
expect "no_such.faiss" "$m" neighbors --faiss "$dir/no_such.faiss" --query w1
head -c 100 /dev/urandom > "$dir/junk.faiss"; cp "$dir/flat.vocab" "$dir/junk.vocab"
expect "not a readable FAISS index" "$m" neighbors --faiss "$dir/junk.faiss" --query w1
head -n 10 "$dir/flat.vocab" > "$dir/short.vocab"; cp "$dir/flat.faiss" "$dir/short.faiss"
expect "different index builds" "$m" neighbors --faiss "$dir/short.faiss" --query w1
expect "exactly one of --query" "$m" neighbors --index "$dir/e.vec" --query w1 --queries "$dir/q"
expect "exclude each other" "$m" neighbors --index "$dir/e.vec" --faiss "$dir/flat.faiss" --query w1
"$m" neighbors --index "$dir/e.vec" --query w1 -k 0 > /dev/null 2>&1
[ $? = 2 ] || fail "-k 0 is not a usage error"
expect '"nope" is not in' "$m" neighbors --faiss "$dir/flat.faiss" --query nope
echo ok
