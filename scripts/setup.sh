#!/usr/bin/env bash
# Installs everything the project needs on Debian bookworm (idempotent; root or sudo):
# the Debian packages listed below, and the npm data packages pinned in package-lock.json.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config git ca-certificates
  libtorch-dev libopenblas0-openmp libblas-dev libgloo-dev
  libsentencepiece-dev
  nlohmann-json3-dev libcli11-dev
  googletest libgtest-dev
  python3 python3-morfessor
  python3-dev pybind11-dev python3-numpy python3-pytest libfaiss-dev python3-faiss
  python3-setuptools python3-wheel python3-pip python3-venv python3-torch
  fasttext itagalog
  clang-format clang-tidy clang libclang-rt-14-dev libomp-14-dev zlib1g-dev
  libzstd-dev zstd slurm-wlm munge
)

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ! command -v npm >/dev/null 2>&1; then missing+=(nodejs npm); fi

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: Debian packages already installed"
fi

# Data packages (no JavaScript runs): corpus, gold roots, root lexicon.
if [ ! -f node_modules/nlptoolkit-corpus/corpus.txt ] ||
   [ ! -f node_modules/nlptoolkit-morphologicalanalysis/penntreebank.txt ] ||
   [ ! -f node_modules/nlptoolkit-dictionary/turkish_dictionary.txt ]; then
  echo "setup: npm ci (data packages)"
  npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
else
  echo "setup: npm data packages already present"
fi

# Python packages from the package index (python/requirements.txt: transformers, tokenizers,
# tiktoken, datasets, megatron-core and their dependencies, every version pinned) in .venv, a
# virtual environment over Debian's Python that still sees Debian's NumPy, FAISS, pytest and
# PyTorch 1.13 (--system-site-packages). The pinned set is closed and installed with --no-deps,
# so the index's torch (megatron-core's metadata asks for it) is never installed. Skipped when
# .venv holds exactly this set (its stamp is the file's checksum).
REQ=python/requirements.txt
stamp=$(sha256sum "$REQ" | cut -d' ' -f1)
if [ -x .venv/bin/python ] && [ "$(cat .venv/.requirements.sha256 2>/dev/null)" = "$stamp" ]; then
  echo "setup: Python packages already installed (.venv)"
else
  echo "setup: pip install -r $REQ into .venv"
  [ -x .venv/bin/python ] || /usr/bin/python3 -m venv --system-site-packages .venv
  .venv/bin/python -m pip install -q --disable-pip-version-check --no-deps -r "$REQ"
  echo "$stamp" > .venv/.requirements.sha256
fi
