#!/usr/bin/env bash
# Configures and builds one CMake preset (default: dev), optionally only some targets.
# Usage: scripts/build.sh [dev|ci|asan] [target ...]
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-dev}
shift || true
# Builds of one preset take turns (several shells or agents may build at once on one tree).
exec 9>"${TMPDIR:-/tmp}/morpheus-build-$preset.lock"
flock 9
cmake --preset "$preset" >/dev/null
if [ $# -gt 0 ]; then
  cmake --build --preset "$preset" -j "$(nproc)" --target "$@"
else
  cmake --build --preset "$preset" -j "$(nproc)"
fi
