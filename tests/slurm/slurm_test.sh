#!/usr/bin/env bash
# A sweep on a real cluster engine: starts a single-node Slurm on this machine (munged,
# slurmctld and slurmd of Debian's munge and slurm-wlm, configured for localhost in a
# temporary directory, on their own ports), submits a sharded sweep as a job array through
# scripts/slurm-sweep.sh (sbatch --array, --wait), merges the shards and checks that the
# result equals the same sweep run locally (in merge's row order), wall-clock columns aside. Stops what it
# started. Exits 0 with "SKIP: ..." where Slurm is not installed or cannot start.
#
#   tests/slurm/slurm_test.sh [BINARY]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="${1:-$root/build/schedlab}"
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
skip() {
  echo "SKIP: $*"
  exit 0
}
for c in munged slurmctld slurmd sbatch sinfo; do
  command -v "$c" > /dev/null || skip "$c not found (apt-get install slurm-wlm munge)"
done
tmp="$(mktemp -d /tmp/schedlab-slurm.XXXXXX)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done
  for f in "$tmp/slurmd.pid" "$tmp/slurmctld.pid" "$tmp/munged.pid"; do
    [ -f "$f" ] && kill "$(cat "$f")" 2> /dev/null || true
  done
  sleep 1
  rm -rf "$tmp"
}
trap cleanup EXIT
chmod 755 "$tmp"
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/munge" "$tmp/work"
chmod 700 "$tmp/munge"

# munge: its own key, socket and files (as root it needs --force).
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$tmp/munge/munge.key"
munged --force --key-file="$tmp/munge/munge.key" --socket="$tmp/munge/munge.socket" \
  --pid-file="$tmp/munged.pid" --log-file="$tmp/munge/munged.log" \
  --seed-file="$tmp/munge/munged.seed" 2> "$tmp/munged.err" ||
  skip "munged did not start: $(head -1 "$tmp/munged.err")"

host="$(hostname -s)"
node="$(slurmd -C 2> /dev/null | head -1)"
[ -n "$node" ] || skip "slurmd -C printed no node configuration"
user="$(id -un)"
port=$((20000 + $$ % 20000))
cat > "$tmp/slurm.conf" <<EOF
ClusterName=schedlab-test
SlurmctldHost=$host
SlurmUser=$user
SlurmdUser=$user
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/munge.socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SlurmdTimeout=30
$node State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$tmp/slurm.conf"
slurmctld -f "$SLURM_CONF" 2> "$tmp/slurmctld.err" ||
  skip "slurmctld did not start: $(tail -1 "$tmp/slurmctld.err")"
slurmd -f "$SLURM_CONF" 2> "$tmp/slurmd.err" || skip "slurmd did not start: $(tail -1 "$tmp/slurmd.err")"
for _ in $(seq 60); do
  sinfo -h -o %T 2> /dev/null | grep -Eq '^(idle|mixed)' && break
  sleep 1
done
sinfo -h -o %T 2> /dev/null | grep -Eq '^(idle|mixed)' ||
  skip "the Slurm node did not become idle: $(sinfo -h -o '%T %E' 2>&1 | head -1)"
echo "slurm: $(sinfo -h -o '%P %D %T %c cpus' | head -1)"

# The same sweep run locally and as a 4-shard job array.
sweep=("$root/bench/bench-64cpu-1000.json" --policy cfs-2.6.32,bfs
  --vary /tasks/sleeper/instance=100,200,300 --set /global/duration=1 --repeat 2)
"$bin" sweep "${sweep[@]}" --jobs 1 --out "$tmp/work/local-run.csv" > /dev/null
# merge sorts its rows; the local sweep's, merged alone, are in the same order.
"$bin" merge "$tmp/work/local-run.csv" --out "$tmp/work/local.csv"
cd "$tmp/work"
timeout 600 "$root/scripts/slurm-sweep.sh" --schedlab "$bin" --dir "$tmp/work/shards" \
  4 "$tmp/work/slurm.csv" "${sweep[@]}"
# Every column but the wall-clock ones.
strip_wall() {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) keep[i] = $i !~ /^wall/ }
           { line = ""; for (i = 1; i <= NF; i++) if (keep[i]) line = line $i ","; print line }' "$1"
}
if cmp -s <(strip_wall "$tmp/work/local.csv") <(strip_wall "$tmp/work/slurm.csv"); then
  echo "PASS: the merged Slurm sweep ($(($(wc -l < "$tmp/work/slurm.csv") - 1)) rows, 4 shards) equals the local one"
else
  echo "FAIL: the merged Slurm sweep differs from the local one"
  diff <(strip_wall "$tmp/work/local.csv") <(strip_wall "$tmp/work/slurm.csv") | head -20
  exit 1
fi
