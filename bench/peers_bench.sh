#!/usr/bin/env bash
# peers_bench.sh: Morpheus next to the tokenizers LM teams run, in one run on the same inputs:
# Hugging Face `tokenizers` byte-level BPE and Unigram trained here on the training text at the
# shipped vocabulary size (50,000) and at 32K, `tiktoken` (an Encoding made from each BPE's
# merges), SentencePiece (`morpheus-spm encode`, the main job's spm-unigram-32k and spm-bpe-32k)
# and Morpheus (`morpheus.Tokenizer.encode_batch` and the transformers class `morpheus.hf`).
# Inputs: the UD dev sentences (the shipped tokenizer; and the same text with the warm-table
# tokenizer, runs/main/tokenizer-warm, whose table holds its words), and the new-text bench's
# input (bench/new_text_bench.sh: the npm corpus's even lines, 4 shuffled copies, with a tokenizer
# exported from the odd lines' word types; made once in WORK/new_text). Each
# system: the first call on a freshly loaded object (cold) and the median of REPS more (warm), in
# MB/s and tokens/s; one process with 1 thread, one with 2 (RAYON_NUM_THREADS for tokenizers,
# num_threads for tiktoken, threads for Morpheus). The work is bench/peers_bench.py, in .venv's
# Python (scripts/setup.sh installs the pinned packages). Prints a Markdown table.
# Usage: bench/peers_bench.sh [TOKDIR] [CORPUS] [WORK] [REPS]
# Defaults: runs/main/tokenizer, runs/main/unsup/prepare/corpus.txt (the training text),
# /tmp/morpheus_peers_bench, 3. The main job's other artifacts, overridable: WARM_TOKDIR
# (runs/main/tokenizer-warm), SPM_DIRS (comma-separated), CHECKPOINT (runs/main/semi/train/final,
# for the new-text tokenizer).
set -euo pipefail
cd "$(dirname "$0")/.."
tok=${1:-runs/main/tokenizer}
corpus=${2:-runs/main/unsup/prepare/corpus.txt}
work=${3:-/tmp/morpheus_peers_bench}
reps=${4:-3}
bin=build/dev/tools
py=.venv/bin/python
warm=${WARM_TOKDIR:-runs/main/tokenizer-warm}
spm=${SPM_DIRS:-runs/main/baselines/spm-unigram-32k,runs/main/baselines/spm-bpe-32k}
checkpoint=${CHECKPOINT:-runs/main/semi/train/final}
nt=$work/new_text
ud=${MORPHEUS_SHARED_DATA:-../shared/data}/corpus/dev_ud_sentences.txt
for f in "$bin/morpheus" "$bin/morpheus-spm" "$tok/morpheus.json" "$warm/morpheus.json" \
  "$corpus" "$ud" "$py" build/dev/python/morpheus/_tokenizer.*.so ${spm//,/ } \
  "$checkpoint/model.pt"; do
  [ -e "$f" ] || { echo "missing $f (scripts/setup.sh, build, run scripts/main.sh)" >&2; exit 1; }
done
mkdir -p "$work" "$nt"
if [ ! -f "$nt/new_text.txt" ] || [ ! -f "$nt/tok/morpheus.json" ]; then
  # bench/new_text_bench.sh's input and tokenizer, made as it makes them.
  python3 bench/new_text_input.py node_modules/nlptoolkit-corpus/corpus.txt "$nt"
  "$bin/morpheus" export --checkpoint "$checkpoint" --out "$nt/tok" \
    --words "$nt/train_words.tsv" --threshold 0.42 2>&1 | tail -1
fi
RAYON_NUM_THREADS=2 "$py" bench/peers_bench.py train --corpus "$corpus" --work "$work"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); commit $(git rev-parse --short HEAD)"
for threads in 1 2; do
  RAYON_NUM_THREADS=$threads TOKENIZERS_PARALLELISM=true "$py" bench/peers_bench.py run \
    --work "$work" --threads $threads --reps "$reps" --spm "$spm" --spm-bin "$bin/morpheus-spm" \
    --input "UD dev=$ud:$tok" --input "UD dev, warm table=$ud:$warm:morpheus" \
    --input "new text=$nt/new_text.txt:$nt/tok" --out "$work/threads$threads.json"
done
"$py" bench/peers_bench.py table "$work/threads1.json" "$work/threads2.json" --profiles
