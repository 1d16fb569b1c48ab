#!/usr/bin/env bash
# Compile-checks (-fsyntax-only) every source that includes LibTorch against LibTorch 2.6, the
# headers of Debian trixie's libtorch-dev, on a Debian bookworm machine (whose libtorch-dev is
# 1.13), without changing the system.
#
# Usage: scripts/check_libtorch2.sh [--nccl] [--jobs N] [--batch N] [BUILD_DIR]
#   BUILD_DIR  a configured build tree (default build/ci); its compile_commands.json gives the
#              flags of the real build (-Werror included in the ci preset). A unity build (the ci
#              preset) is checked through its own unity files; any other build is checked in
#              batches of --batch sources (default 8) of one target.
#   --jobs N   compilers at once (default 2)
#   --nccl     also check the NCCL branch of train/distributed.cc (-DMORPHEUS_HAVE_NCCL
#              -DUSE_C10D_NCCL) against trixie's CUDA LibTorch (contrib libtorch-cuda-dev), NCCL
#              (contrib libnccl-dev) and CUDA headers (non-free nvidia-cuda-dev): a further
#              ~1.05 GB download, so it is not part of the default check.
#   LT2_CACHE  where the unpacked trixie packages live (default build/libtorch2.6, git-ignored);
#              a second run reuses them and downloads nothing.
#
# How: a private apt configuration under a temporary folder (its own sources.list naming trixie
# on deb.debian.org, Dir::State, Dir::Cache, Dir::Etc) runs `apt-get update` and
# `apt-get download`; the Release file is verified against the trixie keys that bookworm's
# debian-archive-keyring already ships in /usr/share/keyrings/debian-archive-keyring.gpg, and
# every .deb against the hashes of that signed index. The packages are unpacked with
# `dpkg-deb -x` into the cache; nothing is installed and /etc/apt is not read. The checked flags
# are the build's, with the LibTorch include dir swapped for the trixie tree, the compile
# definitions trixie's Caffe2 CMake targets add (USE_C10D_MPI) added, and PCH flags dropped.
# A source that passes but reads a header of bookworm's /usr/include from a folder the trixie
# tree also has (ATen/, c10/, torch/, gloo/, ...) counts as failing: its check would not be
# against 2.6.
#
# Measured on the 2-core VM with other builds running (load 5-7): first run 261 s (155 s of CPU;
# downloads a 9.8 MB package index and 2.5 MB of .debs, unpacks 50 MB, precompiles
# <torch/torch.h> into a 600 MB PCH), second run 173 s (112 s of CPU; reuses both). --nccl
# downloads 1.05 GB more (5 s here), of which 74 MB of headers are kept.
# Exit status: 0 every file passes, 1 a file fails, 2 usage (or no LibTorch source in BUILD_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

jobs=2
batch=8
nccl=0
build_dir=build/ci
while [ $# -gt 0 ]; do
  case "$1" in
    --nccl) nccl=1 ;;
    --jobs) jobs=${2:?--jobs needs a number}; shift ;;
    --batch) batch=${2:?--batch needs a number}; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "check_libtorch2: unknown option $1" >&2; exit 2 ;;
    *) build_dir=$1 ;;
  esac
  shift
done
build_dir=$(cd "$build_dir" 2>/dev/null && pwd) || {
  echo "check_libtorch2: no build tree $build_dir (configure one: cmake --preset ci)" >&2
  exit 2
}
if [ ! -f "$build_dir/compile_commands.json" ]; then
  echo "check_libtorch2: $build_dir/compile_commands.json missing (configure with CMake)" >&2
  exit 2
fi
cache=${LT2_CACHE:-$repo/build/libtorch2.6}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)

# The headers our LibTorch sources reach through trixie's LibTorch that bookworm has in another
# version: c10d's ProcessGroupGloo.hpp includes gloo/ (bookworm's is older than the gloo 2.6 is
# built against). Every other header they read outside the trixie tree is glibc's or
# libstdc++'s, or one the build itself uses (gtest, nlohmann, CLI11, pybind11, Python).
CPU_PACKAGES=(libtorch-dev libgloo-dev)
# The NCCL branch: CUDA LibTorch (the same headers, configured for CUDA), its gloo, NCCL, and the
# CUDA toolkit headers that ATen/cuda includes (cuda_runtime_api.h, cublas, cusparse, cusolver;
# cuda_fp16.hpp reads libcu++'s nv/target). nvidia-cuda-dev alone is a 934 MB download.
NCCL_PACKAGES=(libtorch-cuda-dev libgloo-cuda-dev libnccl-dev nvidia-cuda-dev libcu++-dev)

# fetch ROOT COMPONENTS PACKAGE...: downloads the packages from trixie and unpacks them in ROOT,
# unless ROOT/.packages already names exactly these packages.
apt=""
trap '[ -z "$apt" ] || rm -rf "$apt"' EXIT
fetch() {
  local root=$1 components=$2
  shift 2
  local want="$*"
  if [ -f "$root/.packages" ] && [ "$(head -n1 "$root/.packages")" = "$want" ]; then
    echo "check_libtorch2: reusing $root ($(sed -n 2p "$root/.packages"))"
    return
  fi
  apt=$(mktemp -d /tmp/lt2-apt.XXXXXX)
  mkdir -p "$apt"/etc/{apt.conf.d,preferences.d,sources.list.d,trusted.gpg.d} \
    "$apt"/state/lists/partial "$apt"/cache/archives/partial "$apt"/debs
  : >"$apt/state/status"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
    "http://deb.debian.org/debian trixie $components" >"$apt/etc/sources.list"
  cat >"$apt/apt.conf" <<EOF
Dir::Etc "$apt/etc";
Dir::State "$apt/state";
Dir::State::status "$apt/state/status";
Dir::Cache "$apt/cache";
APT::Architecture "amd64";
APT::Architectures { "amd64"; };
APT::Sandbox::User "$(id -un)";
Acquire::Languages "none";
EOF
  echo "check_libtorch2: apt-get update (trixie $components, private configuration in $apt)"
  APT_CONFIG=$apt/apt.conf apt-get update -qq
  (cd "$apt/debs" && { APT_CONFIG=$apt/apt.conf apt-get download -q "$@" 2>&1 |
    grep -v '^Get:' || true; })
  local debs=("$apt"/debs/*.deb)
  [ "${#debs[@]}" -eq "$#" ] || { echo "check_libtorch2: download failed" >&2; exit 1; }
  echo "check_libtorch2: downloaded $(du -cb "${debs[@]}" | tail -n1 | cut -f1) bytes"
  rm -rf "$root"
  mkdir -p "$root"
  local deb versions=()
  for deb in "${debs[@]}"; do
    case "$deb" in
      */nvidia-cuda-dev_* | */libnccl-dev_*) # headers only: the rest is ~2.6 GB of libraries
        dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$root" --wildcards './usr/include/*' ;;
      *) dpkg-deb -x "$deb" "$root" ;;
    esac
    versions+=("$(dpkg-deb -f "$deb" Package)=$(dpkg-deb -f "$deb" Version)")
  done
  printf '%s\n%s\n' "$want" "${versions[*]}" >"$root/.packages"
  rm -rf "$apt"
  apt=""
}

start=$SECONDS
fetch "$cache/cpu" main "${CPU_PACKAGES[@]}"
if [ "$nccl" = 1 ]; then
  fetch "$cache/cuda" "main contrib non-free" "${NCCL_PACKAGES[@]}"
fi

# The compile definitions trixie's torch_cpu target gives its users.
torch_defs() {
  sed -n '/^set_target_properties(torch_cpu /,/^)/{
    s/.*INTERFACE_COMPILE_DEFINITIONS "\([^"]*\)".*/\1/p
  }' \
    "$1/usr/lib/x86_64-linux-gnu/cmake/Caffe2/Caffe2Targets.cmake"
}

status=0
cpu_defs=$(torch_defs "$cache/cpu")
cuda_defs=""
if [ "$nccl" = 1 ]; then cuda_defs=$(torch_defs "$cache/cuda"); fi
python3 - "$build_dir" "$repo" "$cache" "$jobs" "$batch" "$nccl" "$cpu_defs" "$cuda_defs" \
  <<'PY' || status=$?
import concurrent.futures, json, os, re, shlex, subprocess, sys

build, repo, cache, jobs, batch_size, nccl, cpu_defs, cuda_defs = sys.argv[1:9]
jobs, batch_size = int(jobs), int(batch_size)
work = os.path.join(cache, "work")
os.makedirs(work, exist_ok=True)
for f in os.listdir(work):
    os.remove(os.path.join(work, f))

TORCH_DIRS = ("torch/", "ATen/", "c10/", "caffe2/")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


def rel(path):
    return os.path.relpath(path, repo)


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


_direct = {}


def includes_torch(path, search):
    """True when PATH includes a LibTorch header, directly or through the repo's headers."""
    todo, seen = [path], {path}
    while todo:
        f = todo.pop()
        if f not in _direct:
            _direct[f] = INCLUDE.findall(read(f))
        for kind, name in _direct[f]:
            if name.startswith(TORCH_DIRS):
                return True
            for d in ([os.path.dirname(f)] if kind == '"' else []) + search:
                cand = os.path.normpath(os.path.join(d, name))
                if cand.startswith(repo + "/") and os.path.isfile(cand):
                    if cand not in seen:
                        seen.add(cand)
                        todo.append(cand)
                    break
    return False


def parse_entry(e):
    args = e.get("arguments") or shlex.split(e["command"])
    out, i, target, search = [], 1, "", []
    while i < len(args):
        a = args[i]
        if a in ("-o", "-MF", "-MT", "-MQ"):
            if a == "-o":
                m = re.search(r"([^/]+)\.dir/", args[i + 1])
                target = m.group(1) if m else args[i + 1]
            i += 2
            continue
        if a in ("-c", "-MD", "-MMD", "-Winvalid-pch", "-fpch-preprocess") or a == e["file"]:
            i += 1
            continue
        if a == "-x":
            i += 2
            continue
        if a == "-include" and args[i + 1].endswith("cmake_pch.hxx"):
            i += 2
            continue
        if a in ("-I", "-isystem"):
            out += [a, args[i + 1]]
            search.append(args[i + 1])
            i += 2
            continue
        if a.startswith("-I"):
            search.append(a[2:])
        out.append(a)
        i += 1
    return args[0], out, target, search


def sources_of(e):
    f = e["file"]
    if re.search(r"/Unity/unity_\d+_cxx\.cxx$", f):
        return [n for k, n in INCLUDE.findall(read(f)) if k == '"'], True
    return [f], False


def swap_torch(flags, root, defs):
    inc = os.path.join(root, "usr/include")
    out, have = [], set(a[2:] for a in flags if a.startswith("-D"))
    i = 0
    while i < len(flags):
        if flags[i] in ("-I", "-isystem") and flags[i + 1].endswith("torch/csrc/api/include"):
            out += ["-isystem", os.path.join(inc, "torch/csrc/api/include"), "-isystem", inc]
            i += 2
            continue
        out.append(flags[i])
        i += 1
    if inc not in out:
        out += ["-isystem", os.path.join(inc, "torch/csrc/api/include"), "-isystem", inc]
    out += ["-D" + d for d in defs.split(";") if d and d not in have]
    return out


entries = [e for e in json.load(open(os.path.join(build, "compile_commands.json")))
           if not e["file"].endswith("cmake_pch.hxx.cxx")]


class Job:
    """One compiler run: TU (a unity file, a batch file or a source) checks SRCS."""

    def __init__(self, name, cc, flags, tu, srcs, root):
        self.name, self.cc, self.flags, self.tu = name, cc, flags, tu
        self.srcs, self.root = srcs, root


# One job per unity file (or per batch of one target's sources) holding a LibTorch source; a job
# whose sources an earlier job already covers (the -fPIC twins of a library) is left out.
todo, covered, pending = [], set(), {}
for e in entries:
    cc, flags, target, search = parse_entry(e)
    srcs, unity = sources_of(e)
    torch_srcs = [s for s in srcs if includes_torch(s, search)]
    if not torch_srcs or covered.issuperset(torch_srcs):
        continue
    covered.update(torch_srcs)
    flags = swap_torch(flags, os.path.join(cache, "cpu"), cpu_defs)
    if unity:
        todo.append(Job(f"{target} {os.path.basename(e['file'])}", cc, flags, e["file"],
                        torch_srcs, "cpu"))
    else:
        pending.setdefault((target, cc, tuple(flags)), []).extend(torch_srcs)
for (target, cc, flags), srcs in pending.items():
    for k in range(0, len(srcs), batch_size):
        part = srcs[k:k + batch_size]
        if len(part) == 1:
            todo.append(Job(rel(part[0]), cc, list(flags), part[0], part, "cpu"))
            continue
        tu = os.path.join(work, f"{target}_{k // batch_size}.cc")
        with open(tu, "w") as f:
            f.writelines(f'#include "{s}"\n' for s in part)
        todo.append(Job(f"{target} batch {k // batch_size}", cc, list(flags), tu, part, "cpu"))
if nccl == "1":
    dist = os.path.join(repo, "train/distributed.cc")
    e = next((e for e in entries if dist in sources_of(e)[0]), None)
    if e is None:
        sys.exit("check_libtorch2: train/distributed.cc is not in the build's compile commands")
    cc, flags, _, _ = parse_entry(e)
    flags = swap_torch(flags, os.path.join(cache, "cuda"), cuda_defs)
    todo.insert(0, Job("train/distributed.cc (NCCL)", cc,
                       flags + ["-DMORPHEUS_HAVE_NCCL", "-DUSE_C10D_NCCL"], dist, [dist], "cuda"))

if not todo:
    print(f"check_libtorch2: no LibTorch source in {build}/compile_commands.json"
          " (a build configured with MORPHEUS_WITH_TORCH=OFF?)", file=sys.stderr)
    sys.exit(2)

# Top-level folders of each trixie include tree: a bookworm header from one of them is a leak.
shadowed = {r: [d for d in os.listdir(os.path.join(cache, r, "usr/include")) if d != "python3.13"]
            for r in ("cpu", "cuda") if os.path.isdir(os.path.join(cache, r, "usr/include"))}


def leaks(dep, root):
    if not os.path.exists(dep):
        return []
    paths = {os.path.normpath(p) for p in read(dep).replace("\\\n", " ").split()}
    return sorted(p for p in paths for d in shadowed[root]
                  if p == f"/usr/include/{d}" or p.startswith(f"/usr/include/{d}/"))


def run(cmd, log, dep, root):
    r = subprocess.run(cmd, cwd=build, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    text = r.stdout
    bad = leaks(dep, root) if r.returncode == 0 else []
    folders = sorted({"/".join(p.split("/")[:4]) for p in bad})
    for d in folders:
        n = sum(p == d or p.startswith(d + "/") for p in bad)
        text += f"error: read bookworm's {d} ({n} headers), not the trixie tree's\n"
    with open(log, "w") as f:
        f.write(text)
    return r.returncode == 0 and not bad, text


# <torch/torch.h> precompiled once with the flags most jobs share (the dev preset precompiles the
# same header for every LibTorch target); a job whose flags the PCH does not fit (gcc checks
# -fPIC, macros, ...) reads the header as text instead.
pch_dir = os.path.join(cache, "pch")
pch_header = os.path.join(pch_dir, "torch_pch.h")
pch_flags = max((j.flags for j in todo if j.root == "cpu"),
                key=lambda f: sum(j.flags == f for j in todo), default=None)


def build_pch():
    key = json.dumps([todo[0].cc, pch_flags, read(os.path.join(cache, "cpu/.packages"))])
    os.makedirs(pch_dir, exist_ok=True)
    stamp = os.path.join(pch_dir, "key")
    if os.path.exists(stamp) and read(stamp) == key and os.path.exists(pch_header + ".gch"):
        return True
    with open(pch_header, "w") as f:
        f.write("#include <torch/torch.h>\n")
    cc = next(j.cc for j in todo if j.flags == pch_flags)
    ok, text = run([cc] + pch_flags + ["-x", "c++-header", pch_header, "-o", pch_header + ".gch",
                   "-MD", "-MF", os.path.join(pch_dir, "pch.d")],
                   os.path.join(work, "pch.log"), os.path.join(pch_dir, "pch.d"), "cpu")
    if ok:
        with open(stamp, "w") as f:
            f.write(key)
    else:
        print(f"FAIL <torch/torch.h> alone\n{excerpt(text)}", flush=True)
    return ok


def compile_job(job, tag, pch):
    use_pch = job.root == "cpu" and pch is not None and pch.result()
    dep = os.path.join(work, tag + ".d")
    cmd = ([job.cc] + job.flags + (["-include", pch_header] if use_pch else [])
           + ["-fsyntax-only", "-MD", "-MF", dep, "-x", "c++", job.tu])
    return run(cmd, os.path.join(work, tag + ".log"), dep, job.root)


def excerpt(text, limit=40):
    lines, keep = text.splitlines(), []
    for i, line in enumerate(lines):
        if "error:" in line or "required from here" in line or re.search(r"note: {2}", line):
            keep.append(line)
            if i + 1 < len(lines) and lines[i + 1].startswith(" "):
                keep.append(lines[i + 1])
    if not keep:
        keep = lines[-10:]
    more = len(keep) - limit
    tail = f"\n    ... {more} more" if more > 0 else ""
    return "\n".join("    " + line for line in keep[:limit]) + tail


def label(src, job):
    return rel(src) + (" (NCCL)" if job.root == "cuda" else "")


results = {}
with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
    pch = pool.submit(build_pch) if pch_flags is not None else None
    futs = {pool.submit(compile_job, j, f"job{n}", pch): j for n, j in enumerate(todo)}
    retry = []
    for fut in concurrent.futures.as_completed(futs):
        job = futs[fut]
        ok, text = fut.result()
        if ok:
            for s in job.srcs:
                results[label(s, job)] = True
                print(f"PASS {label(s, job)}", flush=True)
        elif len(job.srcs) == 1:
            results[label(job.srcs[0], job)] = False
            print(f"FAIL {label(job.srcs[0], job)}\n{excerpt(text)}", flush=True)
        else:
            print(f"---- {job.name} fails; checking its {len(job.srcs)} files one by one",
                  flush=True)
            retry.append((job, text))
    futs = {}
    for n, (job, _) in enumerate(retry):
        for m, s in enumerate(job.srcs):
            single = Job(rel(s), job.cc, job.flags, s, [s], job.root)
            futs[pool.submit(compile_job, single, f"retry{n}.{m}", pch)] = (job, single)
    failed_alone = set()
    for fut in concurrent.futures.as_completed(futs):
        (job, single), (ok, text) = futs[fut], fut.result()
        name = label(single.tu, single)
        results[name] = ok
        print(f"PASS {name}" if ok else f"FAIL {name}\n{excerpt(text)}", flush=True)
        if not ok:
            failed_alone.add(job.name)
    for job, text in retry:
        if job.name not in failed_alone:
            results[job.name] = False
            print(f"FAIL {job.name} (each file passes alone; the unity batch does not)\n"
                  f"{excerpt(text)}", flush=True)

failing = sorted(k for k, v in results.items() if not v)
print(f"check_libtorch2: {len(results)} files, {len(failing)} failing"
      + (": " + " ".join(failing) if failing else "") + f" (logs: {work})")
sys.exit(1 if failing else 0)
PY
echo "check_libtorch2: $((SECONDS - start)) s"
exit "$status"
