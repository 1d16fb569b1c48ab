#!/usr/bin/env bash
# no_libtorch.sh FILE... [--must-fail FILE...]
# The runtime loads no LibTorch: `ldd` of each FILE (the torch-free front, the Python extensions)
# lists no libtorch*, libc10* or libtorch_cpu; each FILE after --must-fail must list one (a
# check that the test can tell: morpheus-torch does). Exits 1 naming each offender.
set -u
status=0 expect=absent
for f in "$@"; do
  if [ "$f" = --must-fail ]; then expect=present; continue; fi
  [ -e "$f" ] || { echo "FAIL $f: not built"; status=1; continue; }
  libs=$(ldd "$f" 2>&1) || { echo "FAIL ldd $f: $libs"; status=1; continue; }
  found=$(printf '%s\n' "$libs" | grep -E '(libtorch|libc10)[^ ]*\.so' | awk '{print $1}' | sort -u)
  if [ $expect = absent ] && [ -n "$found" ]; then
    echo "FAIL $f loads LibTorch:"; printf '  %s\n' $found; status=1
  elif [ $expect = present ] && [ -z "$found" ]; then
    echo "FAIL $f should load LibTorch (the check cannot tell otherwise)"; status=1
  else
    echo "ok $f ($expect: ${found:-no libtorch/libc10})" | tr '\n' ' '; echo
  fi
done
exit $status
