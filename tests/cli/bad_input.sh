#!/usr/bin/env bash
# bad_input.sh: table-driven bad-input tests of the CLI. One ctest entry per
# (command, fault) pair runs:
#   bad_input.sh run MORPHEUS FIXTURE_DIR DATA_DIR COMMAND FAULT
# and fails unless the command, given the faulty file/dir/config generated into a temp dir:
#   * finishes within the time limit without a crash (no signal, no sanitizer report);
#   * for a fault that is legal input (empty file, no trailing newline, NUL bytes, CRLF, a 50 MB
#     line) exits 0 and writes its whole output file;
#   * otherwise exits 1 (2 for usage errors) with exactly one "error:" line on stderr naming the
#     file and, for content errors, the line or byte, and leaves no output file (or temp file).
# Fixtures (models, prepared data, a tiny tokenizer) are built once per build tree by
#   bad_input.sh setup-nt MORPHEUS_OR_MORPHEUS_NT FIXTURE_DIR DATA_DIR   (cbpe model, prepare)
#   bad_input.sh setup-torch MORPHEUS FIXTURE_DIR DATA_DIR CONFIG         (train + export)
# A missing prerequisite (the hybrid lexicons of the shared data; setpriv or user nobody for the
# unreadable-file case run as root) skips the test (exit 77), or fails it when CI=true (lib.sh).
set -u
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"
action=$1 m=$2 fix=$3 data=$4
shift 4
fail() { echo "FAIL: $*"; exit 1; }

prepare_args() {  # prepare with the tiny teacher and lexicons of tests/data/prepare
  echo --teacher "$data/prepare/teacher.tsv" \
    --set prepare.root_lexicon="$data/prepare/roots.txt" \
    --set prepare.suffix_lexicon="$data/prepare/suffixes.txt" \
    --set prepare.word_min_count=1 --set prepare.root_min_count=1
}

case "$action" in
  setup-nt)
    rm -rf "$fix/nt" && mkdir -p "$fix/nt" || exit 1
    "$m" -q cbpe train --corpus "$data/prepare/corpus.txt" --vocab-size 300 \
      --out "$fix/nt/cbpe" > /dev/null || fail "cbpe train fixture"
    # shellcheck disable=SC2046
    "$m" -q prepare --corpus "$data/prepare/corpus.txt" --out "$fix/nt/data" \
      $(prepare_args) > /dev/null || fail "prepare fixture"
    echo ok; exit 0 ;;
  setup-torch)
    config=$1
    rm -rf "$fix/torch" && mkdir -p "$fix/torch" || exit 1
    # shellcheck disable=SC2046
    "$m" -q prepare --corpus "$data/prepare/corpus.txt" --out "$fix/torch/data" \
      $(prepare_args) > /dev/null || fail "prepare fixture"
    "$m" -q train --data "$fix/torch/data" --config "$config" --out "$fix/torch/run" \
      --device cpu --set train.max_steps=2 --set train.threads=1 > /dev/null || fail "train fixture"
    "$m" -q export --checkpoint "$fix/torch/run/final" --data "$fix/torch/data" \
      --out "$fix/torch/tok" --vocab-size 2000 --min-count 1 > /dev/null || fail "export fixture"
    cp "$config" "$fix/torch/config.json"
    echo ok; exit 0 ;;
  run) ;;
  *) fail "unknown action $action" ;;
esac

cmd=$1 fault=$2
tmp=$(mktemp -d)
trap 'chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
mkdir -p "$tmp/out"
in=$tmp/in.txt
out=$tmp/out/result.txt
as_user=()

# ---- the faulty input ------------------------------------------------------------------------
# Text inputs put the fault on line 2 so that messages must name the line.
kind=text
case "$cmd" in
  hybrid-decode|cbpe-decode|decode|spm-decode) kind=ids ;;
esac
case "$cmd" in
  hybrid-segment|cbpe-segment|segment|spm-segment|embed) kind=words ;;
esac
good_line() {
  case $kind in ids) printf '5 6' ;; words) printf 'Evlerde' ;; *) printf 'Evlerde kitaplar' ;; esac
}

make_input() {
  case "$fault" in
    empty) : > "$in" ;;
    no_newline) { good_line; printf '\n'; good_line; } > "$in" ;;
    crlf) { good_line; printf '\r\n'; good_line; printf '\r\n'; } > "$in" ;;
    nul) { good_line; printf '\n'; good_line; printf '\0x\0\n'; } > "$in" ;;
    trunc_utf8) { good_line; printf '\nab\xc3\n'; } > "$in" ;;
    overlong) { good_line; printf '\na\xc0\xafb\n'; } > "$in" ;;
    surrogate) { good_line; printf '\na\xed\xa0\x80b\n'; } > "$in" ;;
    stray_cont) { good_line; printf '\n\x80ab\n'; } > "$in" ;;
    long_line)  # one 50 MB line (generated, never committed)
      if [ $kind = ids ]; then
        head -c 50000000 < <(yes '5 6' | tr '\n' ' ') > "$in"
      elif [ $kind = words ]; then  # one 50 MB word
        head -c 50000000 < <(yes 'evlerde' | tr -d '\n') > "$in"
      else
        head -c 50000000 < <(yes 'evlerde kitaplar' | tr '\n' ' ') > "$in"
      fi
      printf '\n' >> "$in" ;;
    missing) in=$tmp/no_such_input.txt ;;
    directory) in=$tmp/a_directory; mkdir -p "$in" ;;
    unreadable)
      { good_line; printf '\n'; } > "$in"; chmod 000 "$in"
      if [ "$(id -u)" = 0 ]; then
        command -v setpriv > /dev/null || skip_or_fail "setpriv (running as root)"
        id nobody > /dev/null 2>&1 || skip_or_fail "user nobody (running as root)"
        chmod 777 "$tmp" "$tmp/out"
        as_user=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups)
        "${as_user[@]}" test -x "$m" || skip_or_fail "user nobody allowed to run $m"
      fi ;;
    out_no_dir) { good_line; printf '\n'; } > "$in"; out=$tmp/out/no_such_dir/result.txt ;;
    out_parent_file)
      { good_line; printf '\n'; } > "$in"; : > "$tmp/out/plain"; out=$tmp/out/plain/result.txt ;;
    *) { good_line; printf '\n'; } > "$in" ;;  # model/config/data faults use a good input
  esac
}
make_input

# ---- faulty models, configs, data dirs, checkpoints -----------------------------------------
# copy_model SRC: copies a fixture dir to $tmp/model and damages it per $fault.
flip_byte() {  # flips all bits of the byte in the middle of $1
  local f=$1 size pos
  size=$(stat -c %s "$f")
  pos=$((size / 2))
  printf "$(printf '\\%03o' $((0xFF ^ $(od -An -tu1 -j $pos -N1 "$f"))))" |
    dd of="$f" bs=1 seek=$pos conv=notrunc status=none
}
damage() {  # damage DIR FILE (relative): per $fault
  local dir=$1 file=$2
  case "$fault" in
    model_missing_file|data_missing_cache|ckpt_missing) rm -f "$dir/$file" ;;
    model_truncated|data_truncated_cache|ckpt_truncated)
      truncate -s $(( $(stat -c %s "$dir/$file") / 2 )) "$dir/$file" ;;
    model_bitflip|data_bitflip_cache|ckpt_bitflip) flip_byte "$dir/$file" ;;
    model_empty_file) : > "$dir/$file" ;;
    model_not_dir) rm -rf "$dir"; printf 'x\n' > "$dir" ;;
  esac
}
model=
setup_model() {  # setup_model SRC MAIN_FILE
  [ -e "$1" ] || fail "fixture $1 missing (did the setup test run?)"
  model=$tmp/model
  cp -r "$1" "$model"
  case "$fault" in model_*) damage "$model" "$2" ;; esac
}
config=$tmp/config.json
make_config() {  # make_config BASE_JSON SECTION KEY
  local base=$1 section=$2 key=$3
  case "$fault" in
    cfg_unknown_key) printf '{"%s": {"no_such_key": 1}}\n' "$section" > "$config" ;;
    cfg_wrong_type) printf '{"%s": {"%s": "many"}}\n' "$section" "$key" > "$config" ;;
    cfg_malformed) head -c $(( $(stat -c %s "$base") / 2 )) "$base" > "$config" ;;
    cfg_missing) config=$tmp/no_such_config.json ;;
    cfg_directory) config=$tmp/config_dir; mkdir -p "$config" ;;
    cfg_invalid_utf8) printf '{"%s": {"%s": "\xc3"}}\n' "$section" "$key" > "$config" ;;
    *) cp "$base" "$config" ;;
  esac
}

# ---- the command line ------------------------------------------------------------------------
# out_kind: file = -o FILE; dir = --out DIR (must not exist after a failure).
out_kind=file
argv=()
case "$cmd" in
  pretokenize) argv=(pretokenize "$in" -o "$out") ;;
  hybrid-encode|hybrid-decode|hybrid-segment)
    require_file "$(shared_data_dir)/hybrid/kokler.json"
    setup_model "$(shared_data_dir)/hybrid" kokler.json
    argv=(hybrid "${cmd#hybrid-}" --lossless --lexicon "$model" "$in" -o "$out") ;;
  cbpe-encode|cbpe-decode|cbpe-segment)
    setup_model "$fix/nt/cbpe" merges.txt
    argv=(cbpe "${cmd#cbpe-}" --model "$model" "$in" -o "$out") ;;
  cbpe-train)
    out_kind=dir; out=${out%/result.txt}/model
    argv=(cbpe train --corpus "$in" --vocab-size 300 --out "$out") ;;
  prepare)
    out_kind=dir; out=${out%/result.txt}/data
    printf '{"prepare": {"word_min_count": 1}}\n' > "$tmp/base.json"
    case "$fault" in cfg_*) make_config "$tmp/base.json" prepare word_min_count ;; esac
    # shellcheck disable=SC2046
    argv=(prepare --corpus "$in" --out "$out" $(prepare_args))
    case "$fault" in cfg_*) argv=(prepare --corpus "$data/prepare/corpus.txt" --config "$config"
      --out "$out" $(prepare_args)) ;; esac ;;
  eval)
    out_kind=dir; out=${out%/result.txt}/report
    make_config "$data/eval/tiny_eval.json" speed warm_runs
    argv=(eval --config "$config" --out "$out") ;;
  info)
    out_kind=none
    make_config "$fix/torch/config.json" model char_dim
    argv=(info --config "$config") ;;
  train)
    out_kind=dir; out=${out%/result.txt}/run
    case "$fault" in
      data_*) setup_model "$fix/torch/data" train.cache; model=$tmp/model
              damage "$model" train.cache ;;
      *) setup_model "$fix/torch/data" none ;;
    esac
    make_config "$fix/torch/config.json" train max_steps
    argv=(train --data "$model" --config "$config" --out "$out" --device cpu
          --set train.max_steps=2 --set train.threads=1) ;;
  export)
    out_kind=dir; out=${out%/result.txt}/tok
    setup_model "$fix/torch/run/final" none
    case "$fault" in ckpt_*) damage "$model" "$(cd "$model" && ls | grep -v '\.json$' | head -1)" ;; esac
    argv=(export --checkpoint "$model" --data "$fix/torch/data" --out "$out" --vocab-size 2000
          --min-count 1) ;;
  encode|decode|segment)
    setup_model "$fix/torch/tok" morpheus.json
    argv=("$cmd" --model "$model" "$in" -o "$out") ;;
  embed)
    out=${out%.txt}.vec
    setup_model "$fix/torch/tok" morpheus.json
    argv=(embed --model "$model" --words "$in" --out "$out") ;;
  spm-encode|spm-decode|spm-segment)
    setup_model "$fix/nt/spm" spm.model
    argv=("${cmd#spm-}" --model "$model" "$in" -o "$out") ;;
  *) fail "unknown command $cmd" ;;
esac

# ---- run and judge ---------------------------------------------------------------------------
expect=ok
case "$fault" in
  empty|no_newline|crlf|nul|long_line) expect=ok ;;
  *) expect=error ;;
esac
# Per-command exceptions.
case "$cmd:$fault" in
  *-decode:nul|decode:nul) expect=error ;;  # not a token id (decoders skip a final \r)
  cbpe-train:empty|prepare:empty) expect=error ;;  # nothing to train on: name the corpus
  cbpe-train:out_no_dir|prepare:out_no_dir) expect=ok ;;  # output dirs are made like mkdir -p
esac

# The hang guard. One 50 MB word goes through BPE at about 0.33 MB/s (150 s alone on 2 cores):
# the long line gets twice the time, so a loaded machine does not pass for a hang.
default_limit=300
[ "$fault" != long_line ] || default_limit=600
limit=${MORPHEUS_BAD_INPUT_TIMEOUT:-$default_limit}
stdout=$tmp/stdout stderr=$tmp/stderr
start=$(date +%s)
timeout -k 5 "$limit" "${as_user[@]}" "$m" "${argv[@]}" > "$stdout" 2> "$stderr"
code=$?
echo "command: ${argv[*]}"
echo "exit $code after $(( $(date +%s) - start )) s"
head -c 1500 "$stderr"
[ $code = 124 ] || [ $code = 137 ] && fail "timed out after ${limit}s (hang?)"
[ $code -ge 128 ] && fail "killed by signal $((code - 128))"
grep -qE 'AddressSanitizer|UndefinedBehaviorSanitizer|runtime error:|LeakSanitizer' "$stderr" &&
  fail "sanitizer report"
leftovers=$(find "$tmp/out" -name '*.tmp*' | head -3)
[ -z "$leftovers" ] || fail "temp files left behind: $leftovers"
if [ $expect = ok ]; then
  [ $code = 0 ] || fail "expected exit 0 for legal input, got $code"
  case $out_kind in
    file) [ -f "$out" ] || fail "no output file $out" ;;
    dir) [ -d "$out" ] || fail "no output dir $out" ;;
  esac
  echo ok; exit 0
fi
[ $code = 1 ] || [ $code = 2 ] || fail "expected exit 1 or 2, got $code"
n_err=$(grep -ac '^error:' "$stderr")
[ "$n_err" = 1 ] || fail "expected exactly one 'error:' line, got $n_err"
msg=$(grep -a '^error:' "$stderr")
[ ${#msg} -le 400 ] || fail "error line longer than 400 characters"
case $out_kind in
  file) [ ! -e "$out" ] || fail "output file left behind after a failure: $out" ;;
esac
# What the message must name.
names=()
case "$fault" in
  trunc_utf8|overlong|surrogate|stray_cont) names=("$(basename "$in")" @line2) ;;
  nul|crlf) names=("$(basename "$in")" @line2) ;;
  empty) names=("$(basename "$in")") ;;
  missing|directory|unreadable) names=("$(basename "$in")") ;;
  out_no_dir|out_parent_file) names=("$(basename "$out")") ;;
  cfg_unknown_key) names=("no_such_key") ;;
  cfg_wrong_type|cfg_invalid_utf8) names=("config.json") ;;
  cfg_malformed) names=("config.json") ;;
  cfg_missing) names=("no_such_config.json") ;;
  cfg_directory) names=("config_dir") ;;
  model_*|data_*|ckpt_*) names=("$(basename "$model")") ;;
esac
case "$cmd:$fault" in
  *:out_parent_file) [ $out_kind = dir ] && names=("plain") ;;
esac
for want in "${names[@]}"; do
  if [ "$want" = @line2 ]; then  # "line 2" or "FILE:2:"
    echo "$msg" | grep -qaE 'line 2\b|:2:' || fail "error line does not name line 2: $msg"
    continue
  fi
  case "$msg" in *"$want"*) ;; *) fail "error line does not name '$want': $msg" ;; esac
done
echo ok
