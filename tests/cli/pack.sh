#!/usr/bin/env bash
# pack.sh MORPHEUS TOKDIR
# `morpheus pack` end to end on a tokenizer directory (tests/python/make_tokenizer.sh makes one):
#   * gzip and zstd inputs give the files of the plain input; --workers 2 the files of one worker;
#   * shards 0..2 of 3 (any order) merged with `pack merge` equal the unsharded pack byte for byte,
#     in every format; merge refuses parts with other options (exit 1);
#   * kill -9 during a pack leaves nothing under the final names (or the previous pack intact),
#     and the rerun gives the files of an uninterrupted pack with no temporary file left;
#   * a full disk (a file size limit) fails with exit 1 and leaves no file;
#   * bad input (invalid JSON, a missing key, a non-string text, invalid UTF-8) exits 1 naming
#     the file and line; --skip-invalid counts them in PREFIX.json;
#   * an empty document stays empty in a megatron pack; llmc files llm.c would refuse warn.
set -u
fail() { echo "FAIL: $*"; exit 1; }
[ $# = 2 ] || fail "usage: pack.sh MORPHEUS TOKDIR"
m=$1 tok=$2
[ -f "$tok/morpheus.json" ] || fail "no tokenizer at $tok"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
pack() { "$m" -q pack --model "$tok" "$@"; }
same() {  # same PREFIX_A PREFIX_B EXT...: the files are equal byte for byte
  local a=$1 b=$2; shift 2
  for ext in "$@"; do cmp "$a$ext" "$b$ext" || fail "$a$ext and $b$ext differ"; done
}
temps() { find "$1" -name '*.tmp.*' | wc -l; }

# A corpus of 60,000 JSONL documents (texts with newlines, tabs, quotes, new words).
python3 - "$dir/c.jsonl" <<'PY'
import json, sys
texts = ["Kitaplarımızdan birini İstanbul'da okudum.", "Evlerimizde\nkitaplar\tvar \"dedi\".",
         "", "zqxwlarımızdan kuşkulandık 🙂", "Αθήνα Москва 東京"]
with open(sys.argv[1], "w", encoding="utf-8") as f:
    for i in range(60000):
        f.write(json.dumps({"id": i, "text": f"{texts[i % 5]} {i % 977}"}) + "\n")
PY
gzip -c "$dir/c.jsonl" > "$dir/c.jsonl.gz"

# Reference packs.
pack --out "$dir/ref" --append-eos "$dir/c.jsonl" || fail "pack megatron"
[ -f "$dir/ref.bin" ] && [ -f "$dir/ref.idx" ] && [ -f "$dir/ref.json" ] || fail "no ref files"
pack --out "$dir/w2" --append-eos --workers 2 --block-docs 500 "$dir/c.jsonl" || fail "--workers 2"
same "$dir/ref" "$dir/w2" .bin .idx
pack --out "$dir/gz" --append-eos "$dir/c.jsonl.gz" || fail "pack .gz"
same "$dir/ref" "$dir/gz" .bin .idx
if command -v zstd > /dev/null; then
  zstd -q -c "$dir/c.jsonl" > "$dir/c.jsonl.zst"
  pack --out "$dir/zst" --append-eos "$dir/c.jsonl.zst" || fail "pack .zst"
  same "$dir/ref" "$dir/zst" .bin .idx
fi

# Shards merged = the unsharded pack, every format.
for fmt in megatron llmc npy; do
  case $fmt in megatron) exts=(.bin .idx) ;; llmc) exts=(.bin) ;; npy) exts=(.npy .idx.npy) ;; esac
  pack --format $fmt --out "$dir/u_$fmt" --append-eos "$dir/c.jsonl" || fail "pack $fmt"
  for i in 2 0 1; do
    pack --format $fmt --out "$dir/s${i}_$fmt" --append-eos --shard $i/3 --workers 2 \
      "$dir/c.jsonl" || fail "pack $fmt shard $i"
  done
  "$m" -q pack merge --out "$dir/m_$fmt" "$dir/s1_$fmt" "$dir/s0_$fmt" "$dir/s2_$fmt" \
    || fail "merge $fmt"
  same "$dir/u_$fmt" "$dir/m_$fmt" "${exts[@]}"
done
pack --out "$dir/noeos" --shard 1/3 "$dir/c.jsonl" || fail "pack without eos"
out=$("$m" pack merge --out "$dir/bad_merge" "$dir/s0_megatron" "$dir/noeos" 2>&1)
[ $? = 1 ] || fail "merge of parts with other options: exit 1 expected"
echo "$out" | grep -q "differ in options" || fail "merge message: $out"
[ ! -e "$dir/bad_merge.bin" ] || fail "a refused merge wrote $dir/bad_merge.bin"

# kill -9 during a pack: nothing under the final names; the rerun equals the reference.
kill_pack() {  # kill_pack PREFIX: starts a pack, kills it once its temporary files exist
  # The binary itself in the background: $! of a backgrounded shell function is a subshell,
  # and kill -9 of that would leave the pack running.
  "$m" -q pack --model "$tok" --out "$1" --append-eos --block-docs 64 "$dir/c.jsonl" \
    > /dev/null 2>&1 &
  local pid=$! n=0
  until [ "$(find "$dir" -name "$(basename "$1").bin.tmp.*" | wc -l)" -gt 0 ]; do
    kill -0 $pid 2> /dev/null || break
    n=$((n + 1)); [ $n -lt 2000 ] || break
    sleep 0.005
  done
  sleep 0.05
  kill -0 $pid 2> /dev/null || fail "the pack ended before kill -9 (make the corpus bigger)"
  kill -9 $pid; wait $pid 2> /dev/null
}
kill_pack "$dir/k"
for f in k.bin k.idx k.json; do [ ! -e "$dir/$f" ] || fail "killed pack left $f"; done
[ "$(temps "$dir")" -gt 0 ] || fail "the killed pack left no temporary file (was it killed?)"
pack --out "$dir/k" --append-eos "$dir/c.jsonl" || fail "rerun after kill -9"
same "$dir/ref" "$dir/k" .bin .idx
[ "$(temps "$dir")" = 0 ] || fail "temporary files left after the rerun: $(find "$dir" -name '*.tmp.*')"
# A killed repack leaves the previous pack whole.
cp "$dir/k.json" "$dir/k.json.before"
kill_pack "$dir/k"
same "$dir/ref" "$dir/k" .bin .idx
cmp "$dir/k.json" "$dir/k.json.before" || fail "a killed repack changed the previous manifest"

# A full disk: exit 1, a message, nothing under the final names, no temporary file.
out=$( (trap '' XFSZ; ulimit -f 64; exec "$m" pack --model "$tok" --out "$dir/full" \
  --append-eos "$dir/c.jsonl") 2>&1)
rc=$?
[ $rc = 1 ] || fail "pack on a full disk: exit $rc, expected 1 ($out)"
echo "$out" | grep -q "error: .*full" || echo "$out" | grep -q "File too large" \
  || fail "full-disk message: $out"
for f in "$dir"/full*; do [ ! -e "$f" ] || fail "a failed pack left $f"; done

# Bad input: exit 1 naming the file and line.
bad() {  # bad LINE EXPECTED_MESSAGE [FLAGS...]: LINE after a good first line ($first)
  local line=$1 want=$2; shift 2
  local head='{"text": "iyi"}'
  [ -z "${first:-}" ] || head=$first
  printf '%s\n%s\n' "$head" "$line" > "$dir/bad.jsonl"
  out=$(pack --out "$dir/bad" "$@" "$dir/bad.jsonl" 2>&1)
  local rc=$?
  [ $rc = 1 ] || fail "bad input <$line>: exit $rc, expected 1"
  echo "$out" | grep -q "bad.jsonl:2: .*$want" || fail "bad input <$line>: message: $out"
  [ ! -e "$dir/bad.json" ] || fail "bad input <$line> wrote a pack"
}
bad '{"text": "abc' "invalid JSON"
bad '{"body": "abc"}' 'no "text" key'
bad '{"text": 42}' '"text" is a number'
bad $'{"text": "ab\xc3("}' "invalid JSON"
bad $'ab\xc3(' "invalid UTF-8" --plain
first='{"body": "iyi"}' bad '{"body": 1}' '"body" is a number' --jsonl-key body
printf '{"text": "a"}\n{"text": 1}\n\n{"text": "b"}\n' > "$dir/skip.jsonl"
pack --out "$dir/skip" --skip-invalid "$dir/skip.jsonl" || fail "--skip-invalid"
python3 - "$dir/skip.json" <<'PY' || fail "--skip-invalid counts"
import json, sys
m = json.load(open(sys.argv[1]))
assert (m["documents"], m["skipped_invalid"], m["skipped_documents"]) == (2, 2, [2, 3]), m
PY
out=$(pack --out "$dir/x" "$dir/no_such.jsonl" 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q no_such.jsonl || fail "missing input: exit $rc, $out"
out=$(pack --out "$dir/x" --format llmc "$dir/c.jsonl" 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q -- "--append-eos" || fail "llmc without eos: exit $rc, $out"
out=$(pack --out "$dir/x" --shard 3/3 "$dir/c.jsonl" 2>&1); rc=$?
[ $rc = 1 ] || fail "--shard 3/3: exit $rc, $out"
# The edges of the real loaders (docs/usage.md): an empty document with --append-eos stays empty
# in a megatron pack (a zero-length sequence, no lone </s>); an llmc file llm.c's DataLoader
# would abort on (fewer tokens than its default batch, none: an empty shard) or not read
# (uint32 tokens, magic 20240801) is written with a warning saying so.
printf 'a\n\nb\n' > "$dir/e.txt"
pack --out "$dir/e" --plain --append-eos "$dir/e.txt" || fail "pack with an empty document"
python3 - "$dir/e.idx" <<'PY' || fail "the empty document is not a zero-length sequence"
import struct, sys
idx = open(sys.argv[1], "rb").read()
n = struct.unpack_from("<Q", idx, 18)[0]
lengths = struct.unpack_from(f"<{n}i", idx, 34)
assert n == 3 and lengths[1] == 0 and lengths[0] > 1 and lengths[2] > 1, lengths
PY
llmc() { "$m" pack --model "$1" --out "$2" --format llmc --append-eos --plain "${@:3}" 2>&1; }
out=$(llmc "$tok" "$dir/small" "$dir/e.txt") || fail "small llmc: $out"
echo "$out" | grep -q "llm.c's DataLoader aborts on a file with fewer than B\*T\*processes+1 tokens (4097" ||
  fail "small llmc file: no warning: $out"
out=$(llmc "$tok" "$dir/none" --shard 4/5 "$dir/e.txt") || fail "empty llmc shard: $out"
echo "$out" | grep -q "holds 0 tokens (no document in this shard)" ||
  fail "empty llmc shard: no warning: $out"
out=$("$m" pack --model "$tok" --out "$dir/big" --format llmc --append-eos "$dir/c.jsonl" 2>&1) ||
  fail "llmc: $out"
! echo "$out" | grep -q "llm.c" || fail "a large uint16 llmc file warned: $out"
python3 - "$dir/types.tsv" <<'PY'
import random, sys
rng = random.Random(1)
letters = "abcçdefgğhıijklmnoöprsştuüvyz"
words = {"".join(rng.choice(letters) for _ in range(rng.randint(5, 11))) for _ in range(90000)}
open(sys.argv[1], "w", encoding="utf-8").writelines(f"{w}\t1\n" for w in sorted(words))
PY
"$m" -q export-plain --segmenter bpe --words "$dir/types.tsv" --vocab-size 66000 \
  --out "$dir/wide" || fail "export of a 66,000-id tokenizer"
out=$(llmc "$dir/wide" "$dir/w32" "$dir/e.txt") || fail "uint32 llmc: $out"
echo "$out" | grep -q "uint32 tokens .*magic 20240801.*reads only uint16 files (magic 20240520)" ||
  fail "uint32 llmc file: no warning: $out"
echo ok
