#!/usr/bin/env bash
# neighbors_bench.sh MORPHEUS TOKDIR [QUERIES] [SINGLE]
# `morpheus neighbors` over the words of a tokenizer (their `morpheus embed` .npy, made once in
# runs/bench/ when missing): QUERIES (default 2000) queries answered by one process with
# --queries (one load, one matrix product per block of queries), against one process per query
# (--query, the peer; the first SINGLE queries, default 20), and the same queries through a FAISS
# HNSW index (`morpheus index build --type hnsw`, `neighbors --faiss`). Prints queries/s, their
# ratios and whether the batch answers equal the single-query answers.
set -euo pipefail
m=$1 tok=$2 nq=${3:-2000} single=${4:-20}
work=runs/bench
mkdir -p "$work"
npy=$work/main_words.npy
if [ ! -f "$npy" ]; then
  "$m" embed --model "$tok" --words "$tok/words.tsv" --out "$npy" -q
fi
rows=$(wc -l < "${npy%.npy}.vocab")
# Queries: every (rows/nq)-th word of the index.
awk -v step=$(( rows / nq )) -v n="$nq" 'NR % step == 0 && c < n { print; c++ }' \
  "${npy%.npy}.vocab" > "$work/queries.txt"
now() { date +%s.%N; }
t0=$(now)
"$m" neighbors --index "$npy" --queries "$work/queries.txt" -k 10 > "$work/batch.tsv"
t1=$(now)
: > "$work/single.tsv"
head -n "$single" "$work/queries.txt" | while IFS= read -r q; do
  "$m" neighbors --index "$npy" --query "$q" -k 10 | sed "s/^/$q\t/" >> "$work/single.tsv"
done
t2=$(now)
"$m" index build --embeddings "$npy" --type hnsw --out "$work/main_words.faiss" -q
t3=$(now)
"$m" neighbors --faiss "$work/main_words.faiss" --queries "$work/queries.txt" -k 10 \
  > "$work/faiss.tsv"
t4=$(now)
same=$(head -n $(( single * 10 )) "$work/batch.tsv" | cut -f1,2 | cmp -s - <(cut -f1,2 "$work/single.tsv") \
  && echo yes || echo NO)
recall=$(awk -F'\t' 'NR == FNR { want[$1 "\t" $2] = 1; n++; next } ($1 "\t" $2) in want { hit++ }
  END { printf "%.4f", hit / n }' "$work/batch.tsv" "$work/faiss.tsv")
awk -v nq="$nq" -v single="$single" -v rows="$rows" -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" \
  -v e="$t4" -v same="$same" -v recall="$recall" 'BEGIN {
  batch = nq / (b - a); one = single / (c - b); faiss = nq / (e - d)
  printf "candidates %d, k 10\n", rows
  printf "neighbors --queries (%d queries, one process): %.2f s, %.1f queries/s\n", nq, b - a, batch
  printf "neighbors --query (one process per query, %d): %.2f s, %.2f queries/s\n", single, c - b, one
  printf "batch / per-process: %.0fx; first %d batch answers equal the single ones: %s\n", batch / one, single, same
  printf "index build --type hnsw: %.2f s\n", d - c
  printf "neighbors --faiss hnsw (%d queries, one process): %.2f s, %.1f queries/s (%.1fx --queries), recall@10 vs exact %s\n", nq, e - d, faiss, faiss / batch, recall
}'
