#!/usr/bin/env bash
# The device check: on a CUDA machine with pip PyTorch, builds against its LibTorch and measures,
# in one command of under 8 minutes, what needs a GPU; prints one markdown table.
#   bash dev/gpu_check.sh                    on the GPU machine (needs .gpu/ from
#                                                dev/gpu_deps.sh); table and logs in $OUT
#   bash dev/gpu_check.sh --smoke BUILD_DIR  here and in CI: the same steps on the CPU with
#                                                tiny step counts and BUILD_DIR's binaries (no
#                                                build) on a prepared directory made from
#                                                tests/data/prepare; CUDA rows "skipped (no CUDA)"
#   [--out DIR]                                  where the table and logs go (default $OUT, else
#                                                runs/gpu_check, or a temp dir with --smoke)
#   [--skip ROW,...]                             rows left out (each shows "skipped (--skip)"),
#                                                to fit a short lease: device_check, paper-cpu,
#                                                reference, inference
# Rows: build time; CUDA vs CPU forward agreement (TF32 off, paper config, seeded weights, a real
# batch); the membership DP's share of a paper forward+backward; a one-rank NCCL group's
# collectives; tiny-config training on the device (the loss must fall); paper-config words/s on
# the GPU and on the CPU; the reference implementation's training step on the same GPU at the same
# batch shapes, and our ratio; a device-trained checkpoint exported and segmented with CUDA hidden;
# words/s of new word types through `morpheus segment --device cuda` (LibTorch, its close calls
# decided by the engine) against the torch-free engine on the CPU, and the words they cut
# differently (must be none); the same words through the model segmenter in the process
# (bench/inference_bench: no tokenizer front), with a sweep of batch sizes.
# GIT_DESCRIBE, when set, names the commit in the table (the copy on a GPU machine may carry a
# stale .git or none).
# Files in the output directory: gpu_check.md (the table), build.log, checks.log (every command
# and its output), device_check.jsonl, reference.json, metrics.tar.gz (each run's metrics.jsonl).
# Exit status: 0 when every row that was not skipped ran (a missed target shows in the table, not
# in the status), 1 otherwise, 2 on a usage error.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
repo=$(pwd)
mode=gpu build=build/gpu outdir=${OUT:-}
skip=,
usage() {
  echo "usage: dev/gpu_check.sh [--smoke BUILD_DIR] [--out DIR] [--skip ROW,...]" >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case $1 in
    --smoke) [ $# -ge 2 ] || usage; mode=smoke build=$2; shift 2 ;;
    --out) [ $# -ge 2 ] || usage; outdir=$2; shift 2 ;;
    --skip) [ $# -ge 2 ] || usage; skip=,$2,; shift 2 ;;
    *) usage ;;
  esac
done
for r in ${skip//,/ }; do
  case $r in
    device_check | paper-cpu | reference | inference) ;;
    *) echo "gpu_check: unknown row '$r' in --skip (device_check, paper-cpu, reference," \
         "inference)" >&2; exit 2 ;;
  esac
done
# wanted ROW: whether ROW was not named in --skip.
wanted() { [[ $skip != *",$1,"* ]]; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -z "$outdir" ]; then
  if [ "$mode" = smoke ]; then outdir=$work/out; else outdir=$repo/runs/gpu_check; fi
fi
mkdir -p "$outdir" || exit 1
outdir=$(cd "$outdir" && pwd)
case $build in /*) ;; *) build=$repo/$build ;; esac
log=$outdir/checks.log
: > "$log"
start=$(date +%s)
deadline=$((start + 450))  # GPU mode: rows not begun after 7.5 minutes are skipped
names=() results=() targets=() statuses=() failures=0

# Python helpers (JSON and arithmetic):
#   h metrics FILE          "first_loss last_loss words/s first_fixed last_fixed" of a
#                           metrics.jsonl: words/s over the logged rows after the first (which
#                           pays the start-up) or the only one; "fixed" = aux + sgns + ctr + mlm
#                           unweighted (the total's aux weight shrinks every epoch)
#   h field FILE CHECK KEY  a field (KEY.SUBKEY...) of the JSON line whose "check" is CHECK
#   h device_rows FILE      the agreement and DP-share rows of device_check.jsonl (fields
#                           split by \x1f: a tab would merge empty fields in `read`)
#   h inference FILE        inference_bench's words/s per model, and its batch-size sweep
#   h expr EXPRESSION       a Python expression's value
cat > "$work/h.py" << 'PY'
import json, sys
cmd, args = sys.argv[1], sys.argv[2:]
if cmd == "metrics":
    rows = [json.loads(l) for l in open(args[0]) if '"words_per_s"' in l]
    timed = rows[1:] or rows
    words = sum(r["words"] for r in timed)
    seconds = sum(r["seconds"] for r in timed)
    fixed = [r["aux"] + r["sgns"] + r["ctr"] + r["mlm"] for r in (rows[0], rows[-1])]
    print(f"{rows[0]['loss']:.4f} {rows[-1]['loss']:.4f} {words / seconds:.0f} "
          f"{fixed[0]:.4f} {fixed[1]:.4f}")
elif cmd == "allocator":  # the CUDA allocator's peaks and retries over a metrics.jsonl
    rows = [json.loads(l) for l in open(args[0]) if '"cuda_peak_allocated_mb"' in l]
    if rows:
        print(f"allocator peak {max(r['cuda_peak_allocated_mb'] for r in rows):,.0f} MiB "
              f"allocated, {max(r['cuda_peak_reserved_mb'] for r in rows):,.0f} MiB reserved, "
              f"{max(r['cuda_alloc_retries'] for r in rows)} allocation retries")
    else:
        print("no allocator figures in metrics.jsonl")
elif cmd == "differ":  # words whose `segment` lines differ between two files
    a, b = open(args[0]).read().splitlines(), open(args[1]).read().splitlines()
    print(sum(x != y for x, y in zip(a, b)) + abs(len(a) - len(b)))
elif cmd == "field":
    for line in open(args[0]):
        r = json.loads(line) if line.startswith("{") else {}
        if r.get("check") == args[1]:
            for k in args[2].split("."):
                r = r[k]
            print(r)
            break
elif cmd == "device_rows":  # the agreement and DP rows of device_check.jsonl (unit-separated fields)
    r = {}
    for line in open(args[0]):
        if line.startswith("{"):
            row = json.loads(line)
            r[row["check"]] = row
    b, a, d = r["batch"], r["agreement"], r["dp_share"]
    config = " + ".join(c.rsplit("/", 1)[-1].removesuffix(".json") for c in b["configs"])
    if a["status"] == "ok":
        bl, we = a["boundary_logits"], a["word_embeddings"]
        print(f"CUDA vs CPU forward, {config} config, TF32 off, seeded weights, {b['words']} words "
              f"× {b['positions']} positions\x1fmax rel: boundary logits {bl['max_rel']:.2e}, word "
              f"embeddings {we['max_rel']:.2e} (norm rel {bl['norm_rel']:.2e}, "
              f"{we['norm_rel']:.2e})\x1f≤ 1e-4: {'met' if a['pass'] else 'MISSED'}\x1fok")
    else:
        print(f"CUDA vs CPU forward agreement\x1fthe CPU forward ran (finite: {a['cpu_finite']})"
              f"\x1f≤ 1e-4\x1fskipped ({a['reason']})")
    if d["status"] == "ok":
        print(f"membership DP share of a {config} forward+backward ({d['device']}, {d['words']} "
              f"words × {d['positions']} positions × {d['segments']} segments)\x1fDP "
              f"{d['dp_ms']:.2f} ms of {d['step_ms']:.2f} ms = {100 * d['share']:.1f} %\x1f\x1fok")
    else:
        print(f"membership DP share\x1f\x1f\x1fskipped ({d['reason']})")
    n = r.get("nccl", {"status": "skipped", "reason": "no row"})
    if n["status"] == "ok":
        print(f"NCCL, one rank on cuda:0: join, broadcast, statistics all-reduce, dense + "
              f"row-sparse gradient exchange\x1fjoin {n['join_ms']:.0f} ms, collectives {n['ops_ms']:.1f} ms; "
              f"{n['sparse_rows']} sparse rows\x1fsums equal inputs: "
              f"{'yes' if n['pass'] else 'NO'}\x1f{'ok' if n['pass'] else 'FAILED'}")
    else:
        state = "FAILED" if n["status"] == "failed" else f"skipped ({n['reason']})"
        print(f"NCCL, one rank\x1f{n.get('reason', '') if n['status'] == 'failed' else ''}"
              f"\x1f\x1f{state}")
elif cmd == "inference":  # inference_bench's default-batch words/s and sweep, per model
    import re
    names = {"model of": "tiny (trained)", "random paper-size model": "paper (random weights)"}
    out = []
    for line in open(args[0]):
        m = re.match(r"(model of|random paper-size model).*?default batches (\d+) words/s", line)
        if m:
            out.append([f"{names[m.group(1)]} {int(m.group(2)):,} words/s", []])
        m = re.match(r"\s*TF32 (\d+) words/s .*?same segmentation (\d+)/(\d+)", line)
        if m and out:
            out[-1][0] += (f", TF32 {int(m.group(1)):,} words/s (same segmentation as float: "
                           f"{int(m.group(2)):,} of {int(m.group(3)):,})")
        m = re.match(r"\s*batch (\d+) positions: (\d+) words/s", line)
        if m and out:
            out[-1][1].append(f"{int(m.group(1)):,} → {int(m.group(2)):,}")
    print("; ".join(f"{head} (positions per call → words/s: {', '.join(s)})" if s else head
                    for head, s in out))
elif cmd == "expr":
    print(eval(args[0]))
PY
h() { python3 "$work/h.py" "$@"; }
now() { date +%s.%N; }
since() { h expr "f'{$(now) - $1:.1f}'"; }
# row NAME RESULT TARGET STATUS: STATUS is ok, skipped (...), or anything else for a failure.
row() {
  names+=("$1") results+=("$2") targets+=("$3") statuses+=("$4")
  case $4 in ok | skipped*) ;; *) failures=$((failures + 1)) ;; esac
  printf '[%s s] %s: %s [%s]\n' "$(($(date +%s) - start))" "$1" "$2" "$4" | tee -a "$log" >&2
  write_table
}
# The table so far in gpu_check.md (rewritten after every row: a run stopped by its time limit
# still brings back the rows it finished).
write_table() {
  {
    echo "## Device check ($mode)"
    echo
    echo "GPU: $gpu_name; date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit: $describe;" \
      "torch: ${torch_version:-n/a}; $(($(date +%s) - start)) s"
    echo
    echo "| check | result | target | status |"
    echo "|---|---|---|---|"
    for i in "${!names[@]}"; do
      echo "| ${names[$i]} | ${results[$i]} | ${targets[$i]} | ${statuses[$i]} |"
    done
  } > "$outdir/gpu_check.md"
}
# step TITLE TIMEOUT CMD...: runs CMD with its output appended to the log; CMD's exit status.
step() {
  local title=$1 limit=$2
  shift 2
  printf '\n=== %s: %s\n' "$title" "$*" >> "$log"
  timeout "$limit" "$@" >> "$log" 2>&1
}
# step_to FILE TITLE TIMEOUT CMD...: as step, CMD's standard output in FILE (and in the log).
step_to() {
  local file=$1 title=$2 limit=$3 rc
  shift 3
  printf '\n=== %s: %s\n' "$title" "$*" >> "$log"
  timeout "$limit" "$@" > "$file" 2>> "$log"
  rc=$?
  cat "$file" >> "$log"
  return $rc
}
late() { [ "$mode" = gpu ] && [ "$(date +%s)" -ge "$deadline" ]; }

# --- environment ----------------------------------------------------------------------------
gpu_name=none torch_version="" cuda=0
if [ "$mode" = gpu ]; then
  command -v nvidia-smi > /dev/null &&
    gpu_name=$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader |
      head -1)
  torch_version=$(python3 -c 'import torch; print(torch.__version__)' 2>> "$log")
  python3 -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' 2>> "$log" &&
    cuda=1
fi
describe=${GIT_DESCRIBE:-$(git describe --always --dirty 2> /dev/null)}
[ -n "$describe" ] || describe="$(cat .gpu/commit.txt 2> /dev/null) (when gpu_deps.sh ran)"
dev=cpu
[ "$cuda" = 1 ] && dev=cuda
echo "mode $mode, device $dev, GPU $gpu_name, torch ${torch_version:-n/a}, $describe" |
  tee -a "$log" >&2

# --- build (GPU mode), or the fixture data (smoke) ---------------------------------------------
ready=1
if [ "$mode" = gpu ]; then
  t0=$(now)
  torch_prefix=$(python3 -c 'import torch.utils; print(torch.utils.cmake_prefix_path)')
  torch_include=$(python3 -c 'import os, torch; print(os.path.dirname(torch.__file__))')/include
  nccl_include=$(python3 -c 'import nvidia.nccl as n; print(list(n.__path__)[0] + "/include")' \
    2> /dev/null)
  extra_flags=""
  [ -f "$torch_include/gloo/algorithm.h" ] || extra_flags="-isystem $repo/.gpu/gloo/include"
  libz=$repo/.gpu/zlib/lib/libz.so.1
  for d in /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu /usr/lib64 /usr/lib; do
    if [ -e "$d/libz.so.1" ]; then libz=$d/libz.so.1; break; fi
  done
  echo "torch prefix $torch_prefix; gloo headers from ${extra_flags:-LibTorch}; libz $libz;" \
    "NCCL include ${nccl_include:-none}; $(gcc --version | head -1)" | tee -a "$log" >&2
  nvcc=$(command -v nvcc || true)
  export CUDACXX=${CUDACXX:-${nvcc:-nvcc}}
  export TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-9.0}
  if step configure 120 cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$torch_prefix;$repo/.gpu/prefix" \
      -DMORPHEUS_WITH_SPM=OFF -DMORPHEUS_WITH_PYTHON=OFF -DMORPHEUS_BUILD_TESTS=OFF \
      -DMORPHEUS_CCACHE=OFF -DCMAKE_POLICY_VERSION_MINIMUM=3.5 \
      -DZLIB_INCLUDE_DIR="$repo/.gpu/zlib/include" -DZLIB_LIBRARY="$libz" \
      ${nccl_include:+"-DNCCL_INCLUDE_DIR=$nccl_include"} -DCMAKE_CXX_FLAGS="$extra_flags" \
      ${nvcc:+"-DCUDAToolkit_ROOT=$(dirname "$(dirname "$(readlink -f "$nvcc")")")"} &&
      step build 300 cmake --build "$build" -j 16 --target morpheus device_check inference_bench
  then
    nccl=$(grep -o 'NCCL backend [A-Za-z]*' "$log" | tail -1)
    row "build: configure + morpheus (+ morpheus-torch), device_check, inference_bench" \
      "$(since "$t0") s; ${nccl:-NCCL backend ?}" "" ok
  else
    row "build" "failed after $(since "$t0") s (build.log)" "" FAILED
    ready=0
    grep -E 'error|Error|CMake Error' "$log" | head -20 >&2
    tail -n 20 "$log" >&2
  fi
  mv "$log" "$outdir/build.log" && : > "$log"
  data=$repo/.gpu/data/prep
  new_words=$repo/.gpu/data/new_words.txt
else
  row "build" "not built (--smoke uses $build)" "" "skipped (smoke)"
  # A prepared directory from the test fixture (its teacher file: no Morfessor run).
  fix=$repo/tests/data/prepare
  data=$work/prep
  step "prepare (fixture)" 60 "$build/tools/morpheus" prepare --corpus "$fix/corpus.txt" \
    --teacher "$fix/teacher.tsv" --out "$data" --set prepare.root_lexicon="$fix/roots.txt" \
    --set prepare.suffix_lexicon="$fix/suffixes.txt" --set prepare.word_min_count=1 \
    --set prepare.root_min_count=1 || { row "prepare (fixture)" "failed" "" FAILED; ready=0; }
  new_words=$work/new_words.txt
  printf '%s\n' kitaplarımızdan evlerimizde geliyorum çocuklarımızın okullarda katılmıyorum \
    güzellikler yazılımcılar öğretmenlerimiz gidebileceklerindenmişsiniz > "$new_words"
fi
m=$build/tools/morpheus
if [ "$ready" = 1 ]; then
  for f in "$m" "$build/tools/morpheus-torch" \
      "$build/bench/device_check" "$data/train.cache" "$new_words"; do
    [ -e "$f" ] || { row "inputs" "missing $f" "" FAILED; ready=0; }
  done
fi
[ "$ready" = 1 ] || echo "nothing more can run" | tee -a "$log" >&2

# --- device_check: agreement, DP share, NCCL, batch shapes -----------------------------------
if [ "$ready" = 1 ] && ! wanted device_check; then
  row "device_check (agreement, DP share, NCCL)" "" "" "skipped (--skip)"
elif [ "$ready" = 1 ]; then
  t0=$(now)
  jl=$outdir/device_check.jsonl
  if [ "$mode" = gpu ]; then
    dc_args=(--config configs/paper.json --batch-windows 256 --reps 5)
  else
    dc_args=(--config configs/tiny.json --batch-windows 4 --reps 1 --threads 2)
  fi
  if step_to "$jl" device_check 180 "$build/bench/device_check" --data "$data" \
      "${dc_args[@]}" --shapes-out "$work/shapes.txt"; then
    while IFS=$'\x1f' read -r name result target status; do
      row "$name" "$result" "$target" "$status"
    done < <(h device_rows "$jl")
  else
    row "device_check (agreement, DP share)" "failed after $(since "$t0") s (checks.log)" "" FAILED
  fi
fi

# --- tiny training on the device: the loss must fall -----------------------------------------
train_common=(--set train.eval_every=1000000 --set train.checkpoint_every=1000000
  --set train.dev_max_windows=64)
tiny_ok=0
if [ "$ready" = 1 ] && ! late; then
  t0=$(now)
  if [ "$mode" = gpu ]; then
    tiny_steps=300 tiny_args=(--set train.log_every=25 --set train.warmup_steps=30)
  else
    tiny_steps=12 tiny_args=(--set train.log_every=4 --set train.threads=2)
  fi
  if step "tiny train ($dev)" 150 "$m" -q train --data "$data" --config configs/tiny.json \
      --out "$work/tiny" --device "$dev" "${train_common[@]}" --set train.max_steps=$tiny_steps \
      "${tiny_args[@]}" &&
      read -r first last wps fixed0 fixed1 < <(h metrics "$work/tiny/metrics.jsonl"); then
    # The unweighted sum of the objectives: the total's aux weight falls every epoch by itself.
    fell=$(h expr "'yes' if $fixed1 < $fixed0 else 'no'")
    status=ok
    if [ "$fell" = yes ]; then tiny_ok=1; else status=FAILED; fi
    row "tiny config, $tiny_steps steps on $dev" \
      "loss $first → $last (unweighted objectives $fixed0 → $fixed1); $wps words/s" \
      "objectives fall: $fell" "$status"
  else
    row "tiny config training on $dev" "failed after $(since "$t0") s" "loss falls" FAILED
  fi
fi

# --- paper config words/s: on the GPU, then the same build on the CPU -------------------------
gpu_wps="" paper_ckpt=""
if [ "$ready" = 1 ] && [ "$cuda" = 1 ] && ! late; then
  t0=$(now)
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 200 > "$work/mem.txt" &
  smi=$!
  if step "paper train (cuda)" 180 "$m" -q train --data "$data" --config configs/paper.json \
      --out "$work/paper" --device cuda "${train_common[@]}" --set train.max_steps=50 \
      --set train.log_every=10 --set train.warmup_steps=10 &&
      read -r first last gpu_wps _ < <(h metrics "$work/paper/metrics.jsonl"); then
    kill "$smi" 2> /dev/null
    peak=$(sort -n "$work/mem.txt" | tail -1)
    paper_ckpt=$work/paper/final
    result="$gpu_wps words/s (steps 11–50); loss $first → $last; peak GPU memory ${peak:-?} MiB"
    result+=" (nvidia-smi, with the CUDA context); $(h allocator "$work/paper/metrics.jsonl")"
    row "paper config on the GPU: 50 steps of 256 windows × 2 micro-batches" \
      "$result" \
      "≥ 20,000 words/s: $(h expr "'met' if $gpu_wps >= 20000 else 'MISSED'")" ok
  else
    kill "$smi" 2> /dev/null
    row "paper config on the GPU" "failed after $(since "$t0") s" "≥ 20,000 words/s" FAILED
  fi
elif [ "$ready" = 1 ]; then
  row "paper config on the GPU" "" "≥ 20,000 words/s" "skipped (no CUDA)"
fi
if [ "$ready" = 1 ] && ! wanted paper-cpu; then
  row "paper config on the CPU" "" "" "skipped (--skip)"
elif [ "$ready" = 1 ] && ! late; then
  t0=$(now)
  if [ "$mode" = gpu ]; then
    cpu_steps=4 cpu_windows=64 cpu_threads=16
  else
    cpu_steps=2 cpu_windows=2 cpu_threads=2
  fi
  if step "paper train (cpu)" 150 "$m" -q train --data "$data" --config configs/paper.json \
      --out "$work/paper_cpu" --device cpu "${train_common[@]}" --set train.log_every=1 \
      --set train.warmup_steps=1 --set train.max_steps=$cpu_steps \
      --set train.batch_windows=$cpu_windows --set train.grad_accum=1 \
      --set train.threads=$cpu_threads &&
      read -r first last cpu_wps _ < <(h metrics "$work/paper_cpu/metrics.jsonl"); then
    [ -n "$paper_ckpt" ] || paper_ckpt=$work/paper_cpu/final
    ratio=""
    [ -z "$gpu_wps" ] || ratio="; GPU/CPU $(h expr "f'{$gpu_wps / $cpu_wps:.1f}x'")"
    name="paper config on the CPU, same build: $cpu_steps steps of $cpu_windows windows,"
    row "$name $cpu_threads threads" \
      "$cpu_wps words/s (after step 1)$ratio" "" ok
  else
    row "paper config on the CPU" "failed after $(since "$t0") s" "" FAILED
  fi
fi

# --- the reference implementation on the same GPU --------------------------------------------
if [ "$ready" = 1 ] && ! wanted reference; then
  row "reference training step on the GPU" "" "≥ 3x" "skipped (--skip)"
elif [ "$ready" = 1 ] && [ "$cuda" != 1 ]; then
  row "reference training step on the GPU" "" "≥ 3x" "skipped (no CUDA)"
elif [ "$ready" = 1 ] && { [ ! -f .gpu/reference/src/model_development/training/trainer.py ] ||
    [ ! -s "$work/shapes.txt" ]; }; then
  row "reference training step on the GPU" "no .gpu/reference or no batch shapes" "≥ 3x" \
    "skipped (no reference)"
elif [ "$ready" = 1 ] && ! late; then
  t0=$(now)
  wv=$(wc -l < "$data/words.tsv") rv=$(wc -l < "$data/roots.tsv")
  ref=$outdir/reference.json
  if (cd "$work" && step_to "$work/ref.out" reference 180 env PYTHONUNBUFFERED=1 python3 \
      "$repo/studies/reference_train_bench.py" "$repo/.gpu/reference" --shapes "$work/shapes.txt" \
      --word-vocab "$wv" --root-vocab "$rv" --steps 5 --warmup 2) &&
      grep '^{"check": "reference"' "$work/ref.out" | tail -1 > "$ref" &&
      [ -s "$ref" ]; then
    ref_wps=$(h field "$ref" reference reference_words_per_s)
    ref_step=$(h field "$ref" reference s_per_step)
    ratio="n/a (no GPU figure of ours)" met="n/a"
    if [ -n "$gpu_wps" ]; then
      ratio=$(h expr "f'{$gpu_wps / $ref_wps:.2f}x'")
      met=$(h expr "'met' if $gpu_wps >= 3 * $ref_wps else 'MISSED'")
    fi
    name="reference (PyTorch) training step on the same GPU: 256 sentences × 2, our windows'"
    row "$name word lengths, SGNS vocabulary $wv" \
      "$ref_wps words/s ($ref_step s/step); ours/reference $ratio" "≥ 3x: $met" ok
  else
    row "reference training step on the GPU" "failed after $(since "$t0") s" "≥ 3x" FAILED
  fi
fi

# --- a device-trained checkpoint exported and segmented with CUDA hidden ----------------------
if [ "$ready" = 1 ] && [ "$tiny_ok" = 1 ] && ! late; then
  head -n 1000 "$new_words" > "$work/sample_words.txt"
  CUDA_VISIBLE_DEVICES='' step "export (CUDA hidden)" 120 "$m" -q export \
    --checkpoint "$work/tiny/final" --out "$work/tok_hidden" --data "$data" --vocab-size 8000
  e1=$?
  CUDA_VISIBLE_DEVICES='' step "segment (CUDA hidden)" 120 "$m" segment \
    --model "$work/tok_hidden" "$work/sample_words.txt" -o "$work/seg_hidden.txt"
  e2=$?
  sample=$(head -1 "$work/seg_hidden.txt" 2> /dev/null | tr '\t' ' ')
  status=ok
  [ "$e1" = 0 ] && [ "$e2" = 0 ] && [ -n "$sample" ] || status=FAILED
  row "$dev-trained tiny checkpoint → export → segment, CUDA_VISIBLE_DEVICES=''" \
    "exit codes $e1, $e2; \`$sample\`" "" "$status"
fi

# --- words/s of new word types: --device (LibTorch) against the engine -----------------------
# segment_seconds TOKDIR INPUT DEVICE_FLAGS...: the wall seconds of `morpheus segment` of INPUT
# (output discarded), or nothing when it failed.
segment_seconds() {
  local tok=$1 input=$2 t0
  shift 2
  t0=$(now)
  step "segment $input with $tok" 180 "$m" segment --model "$tok" "$@" "$input" \
    -o "$work/segmented.txt" && h expr "f'{$(now) - $t0:.3f}'"
}
# wps N SECONDS: N / SECONDS as words/s, or n/a for no time.
wps() { h expr "f'{$1 / $2:,.0f} words/s' if $2 > 0 else 'n/a'"; }
# segment_speed NAME CHECKPOINT: export on the device, then time `segment` of one new word (the
# start-up) and of every new word (all outside the table: they go to the model) with --device
# (LibTorch; the engine decides its close calls), in the default blocks of 4,096 lines and in one
# block; then every new word on the torch-free engine (the CPU), and the words cut differently.
segment_speed() {
  local name=$1 ckpt=$2 dflag=() note="" t_one t_all n
  if "$m" export --help 2>&1 | grep -q -- --device && "$m" segment --help 2>&1 |
      grep -q -- --device; then
    dflag=(--device "$dev")
  else
    note=" (no --device flag on export/segment yet: LibTorch's default device)"
  fi
  head -n 1 "$new_words" > "$work/one_word.txt"
  if step "export $name" 150 "$m" -q export --checkpoint "$ckpt" --out "$work/tok_$name" \
      --data "$data" --vocab-size 8000 "${dflag[@]}" &&
      t_one=$(segment_seconds "$work/tok_$name" "$work/one_word.txt" "${dflag[@]}") &&
      t_all=$(segment_seconds "$work/tok_$name" "$new_words" "${dflag[@]}") &&
      t_big=$(segment_seconds "$work/tok_$name" "$new_words" "${dflag[@]}" --block-lines 65536) &&
      cp "$work/segmented.txt" "$work/segmented_device.txt" &&
      t_engine=$(segment_seconds "$work/tok_$name" "$new_words" --device cpu --model-threads 8)
  then
    n=$(wc -l < "$new_words")
    differ=$(h differ "$work/segmented_device.txt" "$work/segmented.txt")
    row "segmentation of $n new word types with --device $dev, $name model$note" \
      "$(wps "$n" "$t_all") end to end ($t_all s); $(h expr \
        "f'{$n / ($t_all - $t_one):,.0f} words/s' if $t_all - $t_one > 0.2 else 'n/a'") without\
 the start-up ($t_one s for one word); --block-lines 65536: $(wps "$n" "$t_big") ($t_big s);\
 the engine on the CPU (8 threads): $(wps "$n" "$t_engine") ($t_engine s); words cut\
 differently: $differ" \
      "0 words differ" "$([ "$differ" = 0 ] && echo ok || echo FAILED)"
  else
    row "segmentation of new words, $name model" "export or segment failed (checks.log)" "" FAILED
  fi
}
if [ "$ready" = 1 ] && [ "$tiny_ok" = 1 ] && ! late; then
  segment_speed tiny "$work/tiny/final"
fi
if [ "$ready" = 1 ] && [ -n "$paper_ckpt" ] && ! late; then
  segment_speed paper "$paper_ckpt"
fi
# The same new words through NeuralSegmenter::segment_many in one process (inference_bench): the
# model's share of the end-to-end time; a sweep of positions per model call.
if [ "$ready" = 1 ] && ! wanted inference; then
  row "model segmenter in the process" "" "" "skipped (--skip)"
elif [ "$ready" = 1 ] && [ "$tiny_ok" = 1 ] && [ -d "$work/tok_tiny" ] && ! late; then
  if [ ! -x "$build/bench/inference_bench" ]; then
    row "model segmenter in the process" "" "" "skipped (no inference_bench in $build)"
  else
    if [ "$mode" = gpu ]; then
      ib_args=(--words 50000 --paper-words 50000 --reps 2 --sweep 16384,65536,262144,1048576)
    else
      ib_args=(--words 10 --paper-words 10 --reps 1 --threads 2 --sweep 4096)
    fi
    t0=$(now)
    if step_to "$work/ib.out" "inference_bench ($dev)" 150 "$build/bench/inference_bench" \
        --device "$dev" --model "$work/tok_tiny" --words-file "$new_words" "${ib_args[@]}"; then
      row "model segmenter in the process (no front) on $dev: the same new words" \
        "$(h inference "$work/ib.out")" "" ok
    else
      row "model segmenter in the process" "failed after $(since "$t0") s (checks.log)" "" FAILED
    fi
  fi
fi
if late; then
  row "time limit" "rows not begun by $((deadline - start)) s were left out" "" "skipped (time)"
fi

# --- the table ----------------------------------------------------------------------------------
runs=()
for f in tiny/metrics.jsonl paper/metrics.jsonl paper_cpu/metrics.jsonl; do
  [ -f "$work/$f" ] && runs+=("$f")
done
[ ${#runs[@]} = 0 ] || tar -czf "$outdir/metrics.tar.gz" -C "$work" "${runs[@]}"
write_table
cat "$outdir/gpu_check.md"
[ "$failures" = 0 ]
