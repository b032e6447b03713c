#!/usr/bin/env bash
# A sweep as a Slurm job array: shard K of N runs as array task K (`sweep --shard K/N`),
# and once every task has ended the shards are merged (`schedlab merge`) into what the
# same sweep run on one machine writes (the runs' seeds come from the scenario, the point
# and the repeat, never from the shard; only the wall_* columns differ).
#
#   scripts/slurm-sweep.sh [options] SHARDS OUT.csv SCENARIO [SWEEP OPTIONS...]
#     --schedlab PATH   the binary the nodes run (default: schedlab on PATH, else ./build)
#     --dir DIR         where the batch script, shards and logs go (default OUT.csv.d)
#     --sbatch "ARGS"   more sbatch options (partition, time limit, account)
#     --print           write the batch script and print it; submit nothing
#
# Example:
#   scripts/slurm-sweep.sh 16 e3.csv scenarios/e3-x264-ultrafast.json --policy bfs,cfs-2.6.32 \
#     --vary /workload/threads=1..16 --repeat 5
# submits 16 array tasks, waits for them (sbatch --wait) and writes e3.csv. The directory
# must be on a file system every node sees.
set -euo pipefail
usage() {
  sed -n '7,11p' "$0" >&2
  exit 2
}
schedlab="" dir="" sbatch_args="" print=0
while [ $# -gt 0 ]; do
  case "$1" in
    --schedlab) schedlab="$2"; shift 2 ;;
    --dir) dir="$2"; shift 2 ;;
    --sbatch) sbatch_args="$2"; shift 2 ;;
    --print) print=1; shift ;;
    -h | --help) usage ;;
    *) break ;;
  esac
done
[ $# -ge 3 ] || usage
shards="$1" out="$2" scenario="$3"
shift 3
case "$shards" in '' | *[!0-9]* | 0) echo "slurm-sweep.sh: SHARDS must be a positive integer" >&2; exit 2 ;; esac
if [ -z "$schedlab" ]; then
  schedlab="$(command -v schedlab || true)"
  [ -n "$schedlab" ] || schedlab="$(cd "$(dirname "$0")/.." && pwd)/build/schedlab"
fi
[ -x "$schedlab" ] || { echo "slurm-sweep.sh: $schedlab: not an executable" >&2; exit 2; }
schedlab="$(cd "$(dirname "$schedlab")" && pwd)/$(basename "$schedlab")"
[ -f "$scenario" ] || { echo "slurm-sweep.sh: $scenario: no such scenario" >&2; exit 2; }
scenario="$(cd "$(dirname "$scenario")" && pwd)/$(basename "$scenario")"
dir="${dir:-$out.d}"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"

# The sweep's own options, quoted for the batch script.
quoted=""
for a in "$@"; do quoted+=" $(printf '%q' "$a")"; done
cat > "$dir/sweep.sbatch" <<EOF
#!/bin/sh
#SBATCH --job-name=schedlab-sweep
#SBATCH --array=1-$shards
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=1
#SBATCH --output=$dir/shard-%a.log
# One shard of the sweep per array task (written by scripts/slurm-sweep.sh).
exec $(printf '%q' "$schedlab") sweep $(printf '%q' "$scenario")$quoted --jobs 1 \\
  --shard "\${SLURM_ARRAY_TASK_ID}/$shards" --out "$dir/shard-\${SLURM_ARRAY_TASK_ID}.csv"
EOF
if [ "$print" = 1 ]; then
  cat "$dir/sweep.sbatch"
  exit 0
fi
command -v sbatch > /dev/null || { echo "slurm-sweep.sh: sbatch not found (is Slurm installed?)" >&2; exit 2; }
# shellcheck disable=SC2086
sbatch --wait --parsable $sbatch_args "$dir/sweep.sbatch" > "$dir/job-id"
parts=()
for ((k = 1; k <= shards; k++)); do
  [ -f "$dir/shard-$k.csv" ] || { echo "slurm-sweep.sh: shard $k wrote nothing (see $dir/shard-$k.log)" >&2; exit 1; }
  parts+=("$dir/shard-$k.csv")
done
"$schedlab" merge "${parts[@]}" --out "$out"
echo "slurm-sweep.sh: job $(cat "$dir/job-id"): $shards shards merged into $out"
