#!/bin/sh
# Test-only segmenter for `morpheus eval`: splits a final -ler/-lar/-de/-da off each word of $1.
awk '{ w = $0; if (match(w, /(ler|lar|de|da)$/) && RSTART > 1) print w "\t" substr(w, 1, RSTART - 1) " " substr(w, RSTART); else print w "\t" w }' "$1"
