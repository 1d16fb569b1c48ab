#!/usr/bin/env bash
# README command (1): install, build, and run the main job on the embedded default.
# Grows into prepare → train → export → segment → embed → eval as those land.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh dev
./build/dev/tools/morpheus --help
