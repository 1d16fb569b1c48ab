#!/usr/bin/env bash
# Configures and builds one CMake preset (default: dev), optionally only some targets.
# Usage: scripts/build.sh [dev|ci|asan] [target ...]
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-dev}
shift || true
cmake --preset "$preset" >/dev/null
if [ $# -gt 0 ]; then
  cmake --build --preset "$preset" -j "$(nproc)" --target "$@"
else
  cmake --build --preset "$preset" -j "$(nproc)"
fi
