#!/usr/bin/env bash
# venv_python.sh VENV ARG...
# Runs VENV/bin/python ARG... : the virtual environment scripts/setup.sh makes (.venv: Debian's
# Python with the pinned packages of python/requirements.txt). Without it, or without those
# packages, the test is skipped (exit 77), or fails when CI=true (skip_or_fail in lib.sh).
set -u
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/../cli/lib.sh"
[ $# -ge 2 ] || { echo "usage: venv_python.sh VENV ARG..."; exit 2; }
venv=$1
shift
py=$venv/bin/python
[ -x "$py" ] || skip_or_fail "$py (run scripts/setup.sh)"
"$py" -c "import transformers, datasets, tiktoken, tokenizers" 2> /dev/null ||
  skip_or_fail "the pinned packages in $venv (run scripts/setup.sh)"
exec "$py" "$@"
