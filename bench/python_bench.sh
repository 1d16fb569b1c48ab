#!/usr/bin/env bash
# python_bench.sh PYTHONPATH TOKDIR [TEXT] [REPS]
# The Python package's start-up and memory (the model on the torch-free engine):
#   * a fresh `python3 -c 'import morpheus; morpheus.Tokenizer(TOKDIR).encode(NEW_WORD)'`:
#     wall seconds, median of REPS (default 5), next to `python3 -c 'import json'` (the
#     interpreter's own start) measured in the same run; target <= 0.2 s;
#   * 2 forked worker processes (multiprocessing, the start method of a PyTorch DataLoader on
#     Linux), then a PyTorch DataLoader with 2 workers, encoding TEXT (default: the UD dev
#     sentences) through a Tokenizer opened in the parent: each worker's private memory (USS:
#     Private_Clean + Private_Dirty of /proc/self/smaps_rollup, what a worker adds; its RSS also
#     counts the pages it shares with the parent, PyTorch's included) and its RSS, the largest
#     seen over its batches; target <= 100 MB private per worker (the DataLoader skipped without python3-torch).
# Prints one line per figure. PYTHONPATH: the package (e.g. build/dev/python); $PYTHON: the
# interpreter (python3).
set -u
[ $# -ge 2 ] || { echo "usage: python_bench.sh PYTHONPATH TOKDIR [TEXT] [REPS]" >&2; exit 2; }
pypath=$1 tok=$2
text=${3:-${MORPHEUS_SHARED_DATA:-../shared/data}/corpus/dev_ud_sentences.txt}
reps=${4:-5}
python=${PYTHON:-python3}  # e.g. PYTHON=/usr/bin/python3 where python3 is a wrapper script
export PYTHONPATH=$pypath
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
time_cmd() {  # time_cmd CODE: the wall seconds of one fresh python3 running CODE
  local t0 t1
  t0=$(date +%s.%N)
  "$python" -c "$1" > /dev/null || { echo "FAILED: $1" >&2; exit 1; }
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc -l
}
first=$(for _ in $(seq "$reps"); do
  time_cmd "import morpheus; t = morpheus.Tokenizer('$tok'); assert t.model_runs == 0; \
t.encode('Zqxwvzqxwlarımızdan'); assert t.model_runs >= 1"
done | median)
bare=$(for _ in $(seq "$reps"); do time_cmd "import json"; done | median)
printf 'fresh process, import + Tokenizer + first new word: %.3f s (median of %s; %s -c "import json": %.3f s); target <= 0.2 s: %s\n' \
  "$first" "$reps" "$python" "$bare" "$(echo "$first <= 0.2" | bc -l | sed 's/1/met/;s/0/MISSED/')"
"$python" - "$tok" "$text" <<'PY'
import multiprocessing
import sys

import morpheus

tok_dir, text = sys.argv[1], sys.argv[2]
lines = open(text, encoding="utf-8").read().splitlines()


def memory_mb():
    """(private, rss) of this process in MB, from /proc/self/smaps_rollup."""
    fields = {}
    for line in open("/proc/self/smaps_rollup"):
        parts = line.split()
        if len(parts) >= 2 and parts[1].isdigit():
            fields[parts[0].rstrip(":")] = int(parts[1]) / 1024
    return fields["Private_Clean"] + fields["Private_Dirty"], fields["Rss"]


tok = morpheus.Tokenizer(tok_dir)
tok.encode(lines[0])  # the parent has loaded its tables and model


def report(kind, n, peaks, parent):
    worst = max(private for private, _ in peaks.values())
    print(f"{kind}, 2 workers, {n:,} lines: per worker private "
          + ", ".join(f"{p:.0f} MB (RSS {r:.0f} MB)" for p, r in peaks.values())
          + f"; parent RSS {parent:.0f} MB; target <= 100 MB private: "
          + ("met" if worst <= 100 else "MISSED"))


def encode_chunk(chunk):  # in a forked worker: the parent's Tokenizer, as a DataLoader uses it
    for line in chunk:
        tok.encode(line)
    return multiprocessing.current_process().pid, memory_mb()


# Forked workers without PyTorch (the start method of a DataLoader on Linux).
peaks = {}
chunks = [lines[i:i + 64] for i in range(0, len(lines), 64)]
with multiprocessing.get_context("fork").Pool(2) as pool:
    for pid, (private, rss) in pool.imap_unordered(encode_chunk, chunks):
        old = peaks.get(pid, (0, 0))
        peaks[pid] = (max(old[0], private), max(old[1], rss))
report("forked workers (multiprocessing)", len(lines), peaks, memory_mb()[1])

try:
    import torch
except ImportError:
    print("DataLoader workers: skipped (no torch)")
    sys.exit(0)


class Lines(torch.utils.data.Dataset):
    def __len__(self):
        return len(lines)

    def __getitem__(self, i):
        return tok.encode(lines[i])


def collate(batch):
    return batch, (torch.utils.data.get_worker_info().id, memory_mb())


loader = torch.utils.data.DataLoader(Lines(), batch_size=64, num_workers=2, collate_fn=collate)
peaks, n = {}, 0
for batch, (worker, (private, rss)) in loader:
    n += len(batch)
    old = peaks.get(worker, (0, 0))
    peaks[worker] = (max(old[0], private), max(old[1], rss))
report("DataLoader (torch imported)", n, peaks, memory_mb()[1])
PY
