#!/usr/bin/env bash
# shared_data.sh REL_PATH... -- COMMAND [ARG...]
# Runs COMMAND with every "@SHARED@" in its arguments replaced by the shared data directory
# ($MORPHEUS_SHARED_DATA, or else <repo>/../shared/data; read when the test runs, not when CMake
# configures). Each REL_PATH must exist under that directory: a missing one skips the test
# (exit 77), or fails it when CI=true (skip_or_fail in lib.sh).
set -u
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"
shared=$(shared_data_dir)
needed=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  needed+=("$shared/$1")
  shift
done
[ $# -gt 1 ] || { echo "usage: shared_data.sh REL_PATH... -- COMMAND [ARG...]"; exit 2; }
shift
require_file "${needed[@]}"
args=()
for a in "$@"; do args+=("${a//@SHARED@/$shared}"); done
exec "${args[@]}"
