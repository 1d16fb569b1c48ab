#!/usr/bin/env bash
# runtime_closure.sh NINJA BUILD_DIR SOURCE_DIR TARGET:REQUIRED_ARCHIVE...
# The runtime (what encodes, segments and embeds) links neither the trainers (prepare/, train/)
# nor eval/ nor the tokenizer's trainer (exporter/). For each Ninja target of BUILD_DIR, from the
# build's own records:
#   * its link line (`ninja -t commands`: the last command) names no archive built in prepare/,
#     train/, eval/ or exporter/, and names REQUIRED_ARCHIVE (so that the libraries it stands for are
#     covered: a static library's dependencies reach the link line of every binary that links it);
#   * no object it is linked from (its own, and those of the archives on its link line) included
#     a file under SOURCE_DIR/prepare, /train, /eval or /exporter (`ninja -t deps`: what the compiler read).
# Prints what it checked; exits 1 naming each offending archive or header.
set -u
[ $# -ge 4 ] || { echo "usage: runtime_closure.sh NINJA BUILD_DIR SOURCE_DIR TARGET:ARCHIVE..."; exit 2; }
ninja=$1 build=$2 src=$3
shift 3
status=0
for spec in "$@"; do
  target=${spec%%:*} required=${spec#*:}
  commands=$("$ninja" -C "$build" -t commands "$target" 2>&1) || {
    echo "FAIL $target: ninja -t commands failed: $commands"; status=1; continue; }
  link=$(printf '%s\n' "$commands" | tail -n 1)
  archives=$(printf '%s\n' "$link" | tr ' ' '\n' | grep -E '\.a$' | sort -u)
  if ! printf '%s\n' "$archives" | grep -qE "(^|/)${required}\$"; then
    echo "FAIL $target: its link line does not name $required (not the target meant?)"
    status=1
  fi
  bad=$(printf '%s\n' "$archives" | grep -E '(^|/)(prepare|train|eval|exporter)/' || true)
  if [ -n "$bad" ]; then
    echo "FAIL $target links archives of prepare/, train/, eval/ or exporter/:"; printf '  %s\n' $bad; status=1
  fi
  # The target's objects, then each archive's (its explicit inputs in `ninja -t query`).
  objects=$({
    printf '%s\n' "$link" | tr ' ' '\n' | grep -E '\.o$'
    for a in $archives; do
      "$ninja" -C "$build" -t query "$a" 2>/dev/null | awk '/^  input:/ { f = 1; next } /^  outputs:/ { f = 0 }
        f && $1 !~ /^\|/ && $1 ~ /\.o$/ { print $1 }'
    done
  } | sort -u)
  [ -n "$objects" ] || { echo "FAIL $target: no compiled objects found"; status=1; continue; }
  # shellcheck disable=SC2086
  deps=$("$ninja" -C "$build" -t deps $objects 2>&1)
  # Paths as the compiler wrote them (absolute, or relative to the build directory), resolved.
  headers=$(printf '%s\n' "$deps" | grep -E '^ +.*(prepare|train|eval|exporter)/[^/]+$' | sed 's/^ *//' | sort -u |
    (cd "$build" && xargs -r realpath -m) | grep -E "^$(realpath -m "$src")/(prepare|train|eval|exporter)/" || true)
  if [ -n "$headers" ]; then
    echo "FAIL $target reads files of prepare/, train/, eval/ or exporter/ (its objects include them):"; printf '%s\n' "$headers"; status=1
  fi
  missing=$(printf '%s\n' "$deps" | grep -c 'deps not found' || true)
  if [ "$missing" != 0 ]; then
    echo "FAIL $target: $missing of its objects have no dependency record (build it first)"
    status=1
  fi
  echo "checked $target: $(printf '%s\n' "$archives" | grep -c .) archives, $(printf '%s\n' "$objects" | wc -l) objects"
done
[ $status = 0 ] && echo "ok: the runtime links none of prepare/, train/, eval/ and exporter/"
exit $status
