#!/usr/bin/env bash
# README command (2): install, build and run every test. Used verbatim by .ci/run.
#   1. setup (apt + npm), 2. format check, 3. CI build (-Werror, unity), clang-tidy on the
#   changed files (CI=true only; base HEAD~1 or $MORPHEUS_TIDY_BASE) + ctest, then the LibTorch
#   sources compile-checked against LibTorch 2.6 (Debian trixie's headers, fetched without
#   changing the system), 4. ASan/UBSan build of the torch-free libraries + ctest, 5. the
#   tokenizer's threaded tests under ThreadSanitizer, 6. a short libFuzzer run per target.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
bash scripts/setup.sh

echo "== clang-format check"
git ls-files '*.h' '*.cc' | xargs clang-format --dry-run -Werror

echo "== build (ci preset)"
bash scripts/build.sh ci
if [ "${CI:-}" = true ]; then
  echo "== clang-tidy (files changed since ${MORPHEUS_TIDY_BASE:-HEAD~1})"
  bash scripts/tidy.sh ${MORPHEUS_TIDY_BASE:+"$MORPHEUS_TIDY_BASE"}
fi
echo "== tests (ci preset)"
ctest --preset ci -j 2
echo "== LibTorch 2.6 compile check (Debian trixie's headers)"
bash scripts/check_libtorch2.sh build/ci

echo "== build (asan preset: torch-free, ASan + UBSan)"
bash scripts/build.sh asan
echo "== tests (asan preset)"
UBSAN_OPTIONS=print_stacktrace=1 ctest --preset asan -j 2

echo "== build (tsan preset: the torch-free tests, ThreadSanitizer)"
bash scripts/build.sh tsan morpheus_core_tests
echo "== tests (tsan preset: the tokenizer's threaded tests)"
ctest --preset tsan -j 2

echo "== fuzzing (libFuzzer, clang, ASan+UBSan; ${MORPHEUS_FUZZ_SECONDS:-10} s per target)"
bash scripts/fuzz.sh "${MORPHEUS_FUZZ_SECONDS:-10}"

echo "== all tests passed in $(( $(date +%s) - start )) s"
