#!/usr/bin/env bash
# slurm.sh MORPHEUS TOKDIR
# A real single-node Slurm cluster (Debian's slurm-wlm and munge: munged, slurmctld and slurmd
# started here, configured under a temp dir on private ports, stopped at exit) runs
# scripts/slurm/submit_pack.sh: an array job packing 3 shards of a JSONL corpus and the merge job
# that depends on it. The merged pack must equal a one-process `morpheus pack` byte for byte,
# `srun -n 2` must run 2 tasks that see SLURM_PROCID 0 and 1 (what `morpheus train` reads), and
# scripts/slurm/train.sbatch with 2 tasks (srun, Gloo) must train the parameters `morpheus train
# --nproc 2` trains (4 steps of the tiny config on PREPARE_DIR's corpus and teacher).
# Without the Slurm or munge daemons the test is skipped (fails with CI=true; lib.sh).
set -u
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"
fail() {
  echo "FAIL: $*"
  for f in "${dir:-/nonexistent}"/log/*.log "${dir:-/nonexistent}"/out/*.log; do
    [ -f "$f" ] && { echo "--- $f"; tail -n 20 "$f"; }
  done
  exit 1
}
[ $# = 4 ] || fail "usage: slurm.sh MORPHEUS TOKDIR PREPARE_DIR CONFIG"
m=$1 tok=$2 prep=$3 config=$4
repo=$morpheus_repo_dir
for tool in munged slurmctld slurmd sbatch srun squeue scontrol sinfo; do
  command -v "$tool" > /dev/null || skip_or_fail "$tool (apt-get install slurm-wlm munge)"
done
[ -f "$tok/morpheus.json" ] || fail "no tokenizer at $tok"
dir=$(mktemp -d /tmp/morpheus-slurm.XXXXXX)
chmod 755 "$dir"
mkdir -p "$dir/etc" "$dir/state" "$dir/spool" "$dir/log" "$dir/run" "$dir/out"
export SLURM_CONF=$dir/etc/slurm.conf

stop_cluster() {
  scontrol shutdown > /dev/null 2>&1
  local f pid
  for f in slurmd slurmctld; do
    for _ in $(seq 50); do
      [ -f "$dir/run/$f.pid" ] && pid=$(cat "$dir/run/$f.pid") && kill -0 "$pid" 2> /dev/null \
        || break
      sleep 0.1
    done
    [ -f "$dir/run/$f.pid" ] && kill -9 "$(cat "$dir/run/$f.pid")" 2> /dev/null
  done
  munged --stop --socket="$dir/run/munge.sock" > /dev/null 2>&1
  rm -rf "$dir"
}
trap stop_cluster EXIT

# munge: a fresh key, a private socket.
head -c 1024 /dev/urandom > "$dir/etc/munge.key"
chmod 400 "$dir/etc/munge.key"
munged --force --socket="$dir/run/munge.sock" --key-file="$dir/etc/munge.key" \
  --pid-file="$dir/run/munged.pid" --log-file="$dir/log/munged.log" \
  --seed-file="$dir/run/munged.seed" || fail "munged did not start"

# slurm.conf: one node (this host), ports picked from the pid so parallel runs do not collide.
host=$(hostname -s)
port=$((20000 + ($$ % 2000) * 2))
user=$(id -un)
cpus=$(nproc)
cat > "$SLURM_CONF" <<CONF
ClusterName=morpheustest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/run/munge.sock
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
PlugStackConfig=$dir/etc/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
: > "$dir/etc/plugstack.conf"
slurmctld -c -f "$SLURM_CONF" || fail "slurmctld did not start"
slurmd -f "$SLURM_CONF" || fail "slurmd did not start"
for _ in $(seq 100); do
  sinfo -h -o %T 2> /dev/null | grep -q idle && break
  sleep 0.2
done
sinfo -h -o %T | grep -q idle || fail "the node never became idle: $(sinfo 2>&1)"

# srun -n 2: two tasks with the ranks morpheus train reads.
ranks=$(srun -n 2 -t 2 bash -c 'echo "$SLURM_PROCID/$SLURM_NTASKS"' | sort | tr '\n' ' ')
[ "$ranks" = "0/2 1/2 " ] || fail "srun -n 2 ranks: <$ranks>"

# The corpus, the one-process pack, and the same through the array + merge jobs.
python3 - "$dir/out/c.jsonl" <<'PY'
import json, sys
texts = ["Kitaplarımızdan birini İstanbul'da okudum.", "Evlerimizde\nkitaplar var.", "",
         "zqxwlarımızdan kuşkulandık 🙂"]
with open(sys.argv[1], "w", encoding="utf-8") as f:
    for i in range(3001):
        f.write(json.dumps({"text": f"{texts[i % 4]} {i}"}) + "\n")
PY
"$m" -q pack --model "$tok" --out "$dir/out/one" --append-eos "$dir/out/c.jsonl" \
  || fail "one-process pack"
ids=$(MORPHEUS=$m SBATCH_PACK_ARGS="--cpus-per-task=1 --time=10" SBATCH_MERGE_ARGS="--time=10" \
  "$repo/scripts/slurm/submit_pack.sh" 3 "$dir/out/slurm" --model "$tok" --append-eos \
  "$dir/out/c.jsonl") || fail "submit_pack.sh"
read -r array merge <<< "$ids"
[ -n "$merge" ] || fail "submit_pack.sh printed <$ids>, expected two job ids"
for _ in $(seq 600); do
  [ -z "$(squeue -h -j "$array,$merge" 2> /dev/null)" ] && break
  sleep 0.2
done
[ -z "$(squeue -h -j "$array,$merge" 2> /dev/null)" ] || fail "jobs still queued: $(squeue)"
[ -f "$dir/out/slurm.json" ] || fail "the merge job wrote no pack"
for ext in .bin .idx; do
  cmp "$dir/out/one$ext" "$dir/out/slurm$ext" || fail "slurm$ext differs from the one-process pack"
done
python3 - "$dir/out/slurm.json" <<'PY' || fail "merged manifest"
import json, sys
m = json.load(open(sys.argv[1]))
assert m["documents"] == 3001 and len(m["merged_from"]) == 3, m
PY
for i in 0 1 2; do
  [ -f "$dir/out/slurm.shard-$i-of-3.log" ] || fail "no log of array task $i"
  [ ! -e "$dir/out/slurm.shard-$i-of-3.json" ] || fail "shard $i was not removed after the merge"
done

# Data-parallel training: the sbatch script's srun ranks against --nproc 2 on this machine, on
# the test corpus prepared with its given teacher.
"$m" -q prepare --corpus "$prep/corpus.txt" --teacher "$prep/teacher.tsv" --out "$dir/out/data" \
  --set prepare.root_lexicon="$prep/roots.txt" --set prepare.suffix_lexicon="$prep/suffixes.txt" \
  --set prepare.word_min_count=1 --set prepare.root_min_count=1 > /dev/null || fail prepare
train_args=(--data "$dir/out/data" --config "$config" --device cpu --set train.max_steps=4
  --set train.batch_windows=2 --set train.checkpoint_every=2 --set train.threads=1)
"$m" -q train "${train_args[@]}" --nproc 2 --out "$dir/out/nproc" > "$dir/out/nproc.log" 2>&1 \
  || { cat "$dir/out/nproc.log"; fail "train --nproc 2"; }
MORPHEUS=$m MASTER_PORT=$((port + 2)) sbatch --wait --parsable --nodes=1 --ntasks=2 \
  --ntasks-per-node=2 --gpus-per-node=0 --cpus-per-task=1 --time=10 \
  --output="$dir/out/train-%j.log" "$repo/scripts/slurm/train.sbatch" -q "${train_args[@]}" \
  --out "$dir/out/srun" > /dev/null || fail "sbatch train.sbatch: $(cat "$dir"/out/train-*.log)"
[ -f "$dir/out/srun/final/config.json" ] || fail "the Slurm training wrote no final/"
python3 - "$dir/out/nproc/metrics.jsonl" "$dir/out/srun/metrics.jsonl" <<'PY' \
  || fail "the Slurm run differs from --nproc 2"
import json, sys
def losses(path):  # every logged loss of every step, timings left out
    rows = [json.loads(l) for l in open(path, encoding="utf-8") if l.strip()]
    return [{k: v for k, v in r.items() if "loss" in k or k == "step"} for r in rows]
a, b = losses(sys.argv[1]), losses(sys.argv[2])
assert a and a == b, (a, b)
print(f"slurm srun training = --nproc 2: {len(a)} metric rows equal")
PY
for f in model.pt config.json; do
  cmp "$dir/out/nproc/final/$f" "$dir/out/srun/final/$f" || fail "final/$f differs from --nproc 2"
done
echo ok
