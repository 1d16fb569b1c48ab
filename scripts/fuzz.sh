#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan+UBSan) and fuzzes each for N seconds (default 10),
# starting from the kept corpus. New crashing inputs are written to build/fuzz/artifacts/; copy
# them into tests/fuzz/corpus/<target>/ as regression tests once fixed.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
cmake --preset fuzz >/dev/null
targets=$(sed -n 's/^morpheus_fuzz_target(\(fuzz_[a-z_]*\).*/\1/p' tests/fuzz/CMakeLists.txt)
cmake --build --preset fuzz -j "$(nproc)" --target $targets
mkdir -p build/fuzz/artifacts
for t in $targets; do
  name=${t#fuzz_}
  work=build/fuzz/corpus/$name
  mkdir -p "$work"
  cp -n tests/fuzz/corpus/"$name"/* "$work"/ 2>/dev/null || true
  echo "== fuzzing $t for ${seconds}s"
  ./build/fuzz/tests/fuzz/"$t" -max_total_time="$seconds" -seed="${MORPHEUS_FUZZ_SEED:-1}" -print_final_stats=1 \
    -artifact_prefix=build/fuzz/artifacts/"$name"- "$work" 2>&1 | grep -E 'stat::number_of_executed_units|Done|ERROR|SUMMARY' || true
  if ls build/fuzz/artifacts/"$name"-* >/dev/null 2>&1; then
    echo "fuzz: $t found a failing input: $(ls build/fuzz/artifacts/"$name"-*)"; exit 1
  fi
done
