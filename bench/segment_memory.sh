#!/usr/bin/env bash
# segment_memory.sh MORPHEUS [SIZES_MB...]  (default sizes 25 100 200)
# Bounded-memory check: peak RSS of corpus-scale commands on generated corpora of growing size.
# A bounded command's peak RSS stays flat as the input grows (ratio ~1.0).
# Measures `morpheus encode`, `morpheus segment --text` (tiny tokenizer exported from a 2-step
# model on tests/data/prepare), `cbpe encode` (model trained on 1 MB of the corpus) and
# `hybrid encode --lossless` (the released lexicons in <shared data>/hybrid, where the shared
# data is $MORPHEUS_SHARED_DATA or else <repo>/../shared/data). Corpora: random Turkish-like words
# from a syllable table (about 1 in 30 tokens a new type), 12 words per line, generated in
# $WORK (default /tmp), never committed. Needs GNU time (/usr/bin/time).
set -eu
m=$1; shift
sizes=("$@"); [ ${#sizes[@]} -gt 0 ] || sizes=(25 100 200)
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${WORK:-/tmp}/segmem.XXXXXX"); trap 'rm -rf "$work"' EXIT
prep=$root/tests/data/prepare
lexicon=${MORPHEUS_SHARED_DATA:-$root/../shared/data}/hybrid
[ -f "$lexicon/kokler.json" ] || { echo "segment_memory.sh: no lexicons in $lexicon" >&2; exit 1; }
"$m" -q prepare --corpus "$prep/corpus.txt" --teacher "$prep/teacher.tsv" --out "$work/data" \
  --set prepare.root_lexicon="$prep/roots.txt" --set prepare.suffix_lexicon="$prep/suffixes.txt" \
  --set prepare.word_min_count=1 --set prepare.root_min_count=1 > /dev/null
"$m" -q train --data "$work/data" --config "$root/configs/tiny.json" --out "$work/run" \
  --device cpu --set train.max_steps=2 --set train.threads=1 > /dev/null
"$m" -q export --checkpoint "$work/run/final" --data "$work/data" --out "$work/tok" \
  --vocab-size 2000 --min-count 1 > /dev/null

gen() {  # gen MB FILE
  awk -v bytes=$(($1 * 1000000)) 'BEGIN {
    srand(7); split("ev ler de da kitap lar ım ız dan ol gel yor muş sa ki ce ci lık", s, " ");
    n = 0;
    while (n < bytes) {
      line = "";
      for (w = 0; w < 12; w++) {
        word = ""; k = 1 + int(rand() * 4);
        for (j = 0; j < k; j++) word = word s[1 + int(rand() * 18)];
        if (rand() < 0.1) word = toupper(substr(word, 1, 1)) substr(word, 2);
        line = line (w ? " " : "") word;
      }
      print line; n += length(line) + 1;
    }
  }' > "$2"
}
gen 1 "$work/train.txt"
"$m" -q cbpe train --corpus "$work/train.txt" --vocab-size 2000 --out "$work/cbpe" > /dev/null

peak() {  # peak CMD...: runs CMD, prints its peak RSS in MB
  /usr/bin/time -f '%M' -o "$work/rss" "$@" > /dev/null
  echo $(( $(cat "$work/rss") / 1024 ))
}
printf '%-28s' "command \\ input MB"; for s in "${sizes[@]}"; do printf '%10s' "$s"; done
printf '  %s\n' "ratio last/first"
declare -A rss
for s in "${sizes[@]}"; do
  gen "$s" "$work/c$s.txt"
  rss[enc,$s]=$(peak "$m" -q encode --model "$work/tok" "$work/c$s.txt")
  rss[seg,$s]=$(peak "$m" -q segment --text --model "$work/tok" "$work/c$s.txt")
  rss[cbpe,$s]=$(peak "$m" -q cbpe encode --model "$work/cbpe" "$work/c$s.txt")
  rss[hyb,$s]=$(peak "$m" -q hybrid encode --lossless --lexicon "$lexicon" "$work/c$s.txt")
  rm -f "$work/c$s.txt"
done
first=${sizes[0]} last=${sizes[${#sizes[@]}-1]}
for k in enc:"morpheus encode" seg:"morpheus segment --text" cbpe:"cbpe encode" \
         hyb:"hybrid encode --lossless"; do
  key=${k%%:*}
  printf '%-28s' "${k#*:} (MB)"
  for s in "${sizes[@]}"; do printf '%10s' "${rss[$key,$s]}"; done
  awk -v a="${rss[$key,$first]}" -v b="${rss[$key,$last]}" 'BEGIN { printf "%14.2f\n", b / a }'
done
