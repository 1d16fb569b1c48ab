#!/usr/bin/env bash
# Builds and tests the project against LibTorch 2.6 in a Debian trixie chroot on a bookworm
# machine (not run in CI): debootstraps trixie into ROOT (once), installs there libtorch-dev 2.6
# (CPU) and the rest of scripts/setup.sh's build and test packages, bind-mounts the checkout (and
# the npm data and shared evaluation data it reads) at the same paths, configures the dev preset's
# settings in build/lt2, builds and runs ctest inside. Idempotent: a second run reuses the chroot,
# its packages and the build tree. Needs root (debootstrap, mount, chroot); the one change to the
# host is bookworm's debootstrap package, installed when missing.
#
# Usage: dev/libtorch2_chroot.sh [--no-test] [ROOT] [-- CTEST_ARG...]
#   ROOT       the chroot folder (default /work/trixie-root), outside the checkout
#   --no-test  configure and build only
#   CTEST_ARG  passed to ctest (default: -j 2; e.g. -- -R Model -j 2)
#   MORPHEUS_SHARED_DATA  the shared evaluation data (default ../shared/data beside the checkout)
#   LT2_CMAKE_ARGS        more configure arguments, space-separated (e.g.
#                         -DCMAKE_DISABLE_FIND_PACKAGE_faiss=ON builds without FAISS; build/lt2
#                         keeps it until =OFF)
#
# Measured on the 2-core VM (other builds running, load 7-12): the chroot with its packages 205 s
# (291 packages, 334 MB of .debs; 1.7 GB on disk, plus the chroot's ccache), a cold build 57 min
# (build/lt2: 5.1 GB), an incremental one 91 s, ctest -j 2 305 s.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

root=/work/trixie-root
run_tests=1
ctest_args=(-j 2)
while [ $# -gt 0 ]; do
  case "$1" in
    --no-test) run_tests=0 ;;
    --) shift; ctest_args=("$@"); break ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "libtorch2_chroot: unknown option $1" >&2; exit 2 ;;
    *) root=$1 ;;
  esac
  shift
done
if [ "$(id -u)" != 0 ]; then
  echo "libtorch2_chroot: needs root (debootstrap, mount, chroot)" >&2
  exit 2
fi
mkdir -p "$root"
root=$(cd "$root" && pwd)
case "$root/" in
  "$repo"/*) echo "libtorch2_chroot: ROOT must lie outside the checkout" >&2; exit 2 ;;
esac
start=$SECONDS
mirror=http://deb.debian.org/debian

# setup.sh's packages (trixie has them under the same names), less the clang tools (format, tidy,
# fuzzing), which the LibTorch build and its tests do not use: one list, read from setup.sh.
mapfile -t PACKAGES < <(sed -n '/^PACKAGES=(/,/^)/p' scripts/setup.sh | sed '1d;$d' |
  tr -s ' ' '\n' | grep -v '^$' | grep -vE '^(clang|clang-format|clang-tidy|libclang-rt-.*)$')
if [ ${#PACKAGES[@]} -lt 10 ]; then
  echo "libtorch2_chroot: no package list in scripts/setup.sh" >&2
  exit 1
fi

# 1. The base system. debootstrap checks the Release signature with the trixie keys of
# bookworm's debian-archive-keyring.
if [ ! -f "$root/.morpheus-base" ]; then
  if ! command -v debootstrap >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap
  fi
  echo "libtorch2_chroot: debootstrap trixie into $root"
  debootstrap --variant=minbase --keyring=/usr/share/keyrings/debian-archive-keyring.gpg \
    trixie "$root" "$mirror"
  touch "$root/.morpheus-base"
fi

# 2. Mounts, undone on exit. The checkout, the real folder of its node_modules and the shared
# data appear at their host paths, so build trees and test paths read the same in both.
mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    umount -R "${mounted[$i]}" 2>/dev/null || umount -l "${mounted[$i]}" || true
  done
}
trap cleanup EXIT
bind() { # bind SRC: SRC at the same path inside the chroot
  local dst=$root$1
  mkdir -p "$dst"
  if ! mountpoint -q "$dst"; then
    mount --rbind "$1" "$dst"
    mount --make-rslave "$dst"
    mounted+=("$dst")
  fi
}
if ! mountpoint -q "$root/proc"; then mount -t proc proc "$root/proc"; mounted+=("$root/proc"); fi
bind /sys
bind /dev
bind "$repo"
if [ -L node_modules ] || [ -d node_modules ]; then
  modules=$(readlink -f node_modules)
  case "$modules/" in "$repo"/*) ;; *) bind "$modules" ;; esac
fi
shared=${MORPHEUS_SHARED_DATA:-$(dirname "$repo")/shared/data}
if [ -d "$shared" ]; then
  shared=$(readlink -f "$shared")
  bind "$shared"
else
  shared=""
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"

in_root() {
  chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    ${shared:+MORPHEUS_SHARED_DATA="$shared"} "$@"
}

# 3. Packages (only the missing ones; the first run downloads ~275 MB).
missing=()
for p in "${PACKAGES[@]}"; do
  in_root dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "libtorch2_chroot: installing ${missing[*]}"
  log=$root/var/log/morpheus-install.log
  if ! { in_root apt-get update -qq &&
    in_root env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -q --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    echo "libtorch2_chroot: package installation failed (log: $log)" >&2
    exit 1
  fi
  grep -E '^(Need to get|After this operation)' "$log" || true
  in_root apt-get clean
fi
echo "libtorch2_chroot: $(in_root dpkg-query -W -f='${Package} ${Version}' libtorch-dev)," \
  "ready after $((SECONDS - start)) s"

# 4. Configure (the dev preset's settings in build/lt2), build (past failures: every failing
# file shows in one run), test.
t=$SECONDS
# shellcheck disable=SC2086 # LT2_CMAKE_ARGS is a list of words
in_root sh -c 'cd "$1" && shift && cmake --preset dev -B build/lt2 "$@" >/dev/null' sh "$repo" \
  ${LT2_CMAKE_ARGS:-}
if ! in_root nice -n 10 cmake --build "$repo/build/lt2" -j "$(nproc)" -- -k 0; then
  echo "libtorch2_chroot: build failed after $((SECONDS - t)) s" >&2
  exit 1
fi
echo "libtorch2_chroot: build done in $((SECONDS - t)) s"
if [ "$run_tests" = 1 ]; then
  t=$SECONDS
  status=0
  in_root nice -n 10 ctest --test-dir "$repo/build/lt2" --output-on-failure "${ctest_args[@]}" ||
    status=$?
  echo "libtorch2_chroot: ctest done in $((SECONDS - t)) s (exit $status)"
fi
echo "libtorch2_chroot: $((SECONDS - start)) s in all"
exit "${status:-0}"
