#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan+UBSan) and fuzzes each for N seconds (default 10),
# starting from the kept corpus. A target fuzz_<name> that exits non-zero (a crash, a sanitizer
# report, a failed check) or writes a crashing input to build/fuzz/artifacts/ fails the script;
# its full output is in build/fuzz/logs/<name>.log. Copy crashing inputs into
# tests/fuzz/corpus/<name>/ as regression tests once fixed. The hybrid targets read
# <shared data>/hybrid ($MORPHEUS_SHARED_DATA, or else ../shared/data).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
cmake --preset fuzz >/dev/null
targets=$(sed -n 's/^morpheus_fuzz_target(\(fuzz_[a-z_]*\).*/\1/p' tests/fuzz/CMakeLists.txt)
cmake --build --preset fuzz -j "$(nproc)" --target $targets
mkdir -p build/fuzz/artifacts build/fuzz/logs
for t in $targets; do
  name=${t#fuzz_}
  work=build/fuzz/corpus/$name
  mkdir -p "$work"
  cp -n tests/fuzz/corpus/"$name"/* "$work"/ 2>/dev/null || true
  echo "== fuzzing $t for ${seconds}s"
  log=build/fuzz/logs/$name.log
  status=0
  ./build/fuzz/tests/fuzz/"$t" -max_total_time="$seconds" -seed="${MORPHEUS_FUZZ_SEED:-1}" -print_final_stats=1 \
    -artifact_prefix=build/fuzz/artifacts/"$name"- "$work" > "$log" 2>&1 || status=$?
  grep -E 'stat::number_of_executed_units|Done|ERROR|SUMMARY' "$log" || true  # a summary only
  if [ "$status" != 0 ]; then
    echo "fuzz: $t exited with status $status (full log: $log); its last lines:"
    tail -n 40 "$log"
    exit 1
  fi
  if ls build/fuzz/artifacts/"$name"-* >/dev/null 2>&1; then
    echo "fuzz: $t found a failing input: $(ls build/fuzz/artifacts/"$name"-*)"; exit 1
  fi
done
