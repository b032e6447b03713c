#!/usr/bin/env bash
# make bench: whole `schedlab run --json` processes on the bench load (bench-64cpu-1000.json:
# 64 CPUs, 500 hogs and 500 tasks running 200 us and sleeping 1 ms), measured in CPU
# seconds (user + system, /usr/bin/time) and peak resident memory, the median of REPEATS
# runs taken interleaved (round-robin over the points, so that a noisy neighbour hurts
# every point alike). Against the practical limit: bench/limit_loop.cpp on the same load.
# The cluster sweep test is tests/slurm/slurm_test.sh (make test-slurm).
#
#   bench/bench.sh [BUILD_DIR] [REPEATS] [SECTION...]
#   sections: limit policies tasks cpus memory sweep (default: all)
#   POLICIES="cfs-2.6.32 bfs" bench/bench.sh ...   the tasks and cpus sections for those only
#   DELTA_EVENTS=N bench/bench.sh ...   the tasks and cpus sections' events between their two runs
#   COMPARE=OTHER_BINARY bench/bench.sh ...   each point also under OTHER_BINARY (marked
#                                             "(other)"), interleaved with this build's runs
#
# Figures: events = summary.events of --json (every switch, wake-up, migration, fork, ...:
# the rows --events would write) and switches = summary.context_switches (as the limit loop
# counts them, idle to a task included), from one extra run (the simulation is
# deterministic) whose maximum RSS (/usr/bin/time) is the peak memory; ns/event and
# switches per CPU second divide by the median CPU time of the timed runs (user + system,
# bash's time, to the millisecond).
set -euo pipefail
TIMEFORMAT='%3U %3S'
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../build}"
repeats="${2:-5}"
shift 2 2>/dev/null || shift $# || true
sections=("$@")
[ ${#sections[@]} -gt 0 ] || sections=(limit policies tasks cpus memory sweep)
bin="$build/schedlab"
load="$here/bench-64cpu-1000.json"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

# One point: a name and the arguments of `schedlab run` after the scenario (and the same
# under $COMPARE).
declare -a names=() argv=() bins=()
add_point() {
  local name="$1"
  shift
  names+=("$name")
  argv+=("$*")
  bins+=("$bin")
  if [ -n "${COMPARE:-}" ]; then
    names+=("$name (other)")
    argv+=("$*")
    bins+=("$COMPARE")
  fi
}

# Runs every point REPEATS times, interleaved, then prints one line per point.
measure() {
  local n=${#names[@]} i r reps="${1:-$repeats}"
  for ((i = 0; i < n; i++)); do
    # shellcheck disable=SC2086
    if ! /usr/bin/time -f "%M" -o "$tmp/rss.$i" "${bins[i]}" run "$load" ${argv[i]} --json \
      > "$tmp/json.$i" 2> "$tmp/err.$i"; then
      echo "${names[i]}: refused: $(head -1 "$tmp/err.$i")"
      continue
    fi
    sed -n 's/^    "events": \([0-9]*\).*/\1/p' "$tmp/json.$i" > "$tmp/events.$i"
    sed -n 's/^    "context_switches": \([0-9]*\).*/\1/p' "$tmp/json.$i" > "$tmp/switches.$i"
    rm -f "$tmp/json.$i"
  done
  for ((r = 0; r < reps; r++)); do
    for ((i = 0; i < n; i++)); do
      [ -f "$tmp/events.$i" ] || continue
      # bash's time: user and system CPU seconds to the millisecond (getrusage)
      # shellcheck disable=SC2086
      { time "${bins[i]}" run "$load" ${argv[i]} --json > /dev/null; } 2> "$tmp/time"
      awk '{print $1 + $2}' "$tmp/time" >> "$tmp/runs.$i"
    done
  done
  printf '%-36s %10s %10s %9s %12s %9s %8s\n' point switches events cpu_s switches/cpu_s ns/event peak_MB
  for ((i = 0; i < n; i++)); do
    [ -f "$tmp/events.$i" ] || continue
    local cpu rss sw ev
    cpu=$(median < "$tmp/runs.$i")
    rss=$(cat "$tmp/rss.$i")
    sw=$(cat "$tmp/switches.$i")
    ev=$(cat "$tmp/events.$i")
    awk -v name="${names[i]}" -v sw="$sw" -v ev="$ev" -v cpu="$cpu" -v rss="$rss" 'BEGIN {
      printf "%-36s %10d %10d %9.3f %12.0f %9.0f %8.1f\n", name, sw, ev, cpu,
             (cpu > 0 ? sw / cpu : 0), (cpu > 0 ? cpu * 1e9 / ev : 0), rss / 1024 }'
  done
  rm -f "$tmp"/runs.* "$tmp"/switches.* "$tmp"/events.* "$tmp"/err.* "$tmp"/rss.*
  names=()
  argv=()
  bins=()
}

# The simulation alone, without setup and output: each point runs to a duration S and to
# 2S, and ns/event is the difference of their median CPU times over the difference of
# their events (summary.events). Setup (the workload, the forks) and output (one --json
# row per task) are the same in both runs and cancel. S doubles (1, 2, 4, ... simulated
# seconds, at most 128) until the second half holds DELTA_EVENTS events (default
# 1,000,000): the event rate is not steady at first (100,000 tasks forked at time 0 take
# seconds to have all run once, and a task that has not run writes a shorter row), and
# runs long enough for events >= 50x tasks would need 5 M events at 100,000 tasks, where
# some policies make only ~5,000 events per simulated second, so their setup would not
# cancel. Ticks are not events (the analyzer never sees them), so a load with few events
# per simulated second pays its ticks in ns/event; ev/sim_s shows that rate.
measure_delta() {
  local n=${#names[@]} i r target=${DELTA_EVENTS:-1000000}
  local -a short=() dur=()
  events_at() {  # events of point $1 at duration $2 (empty if refused)
    # shellcheck disable=SC2086
    "${bins[$1]}" run "$load" ${argv[$1]} --duration "$2" --json 2> "$tmp/err" |
      sed -n 's/^    "events": \([0-9]*\).*/\1/p'
  }
  for ((i = 0; i < n; i++)); do
    local s=1 e0 e2
    e0=$(events_at "$i" "$s")
    if [ -z "$e0" ]; then
      echo "${names[i]}: refused: $(head -1 "$tmp/err")"
      continue
    fi
    while :; do  # double S until its second half holds the target's events
      e2=$(events_at "$i" $((2 * s)))
      if [ $((e2 - e0)) -ge "$target" ] || [ $((2 * s)) -gt 128 ]; then break; fi
      s=$((2 * s))
      e0=$e2
    done
    short[i]=$s
    dur[i]=$((2 * s))
    echo "$e0 $e2" > "$tmp/events.$i"
  done
  for ((r = 0; r < repeats; r++)); do
    for ((i = 0; i < n; i++)); do
      [ -f "$tmp/events.$i" ] || continue
      local d
      for d in "${short[i]}" "${dur[i]}"; do
        # shellcheck disable=SC2086
        { time "${bins[i]}" run "$load" ${argv[i]} --duration "$d" --json > /dev/null; } 2> "$tmp/time"
        awk '{print $1 + $2}' "$tmp/time" >> "$tmp/runs.$i.$d"
      done
    done
  done
  printf '%-28s %6s %10s %9s %9s %9s %9s\n' point S_s delta_ev ev/sim_s cpu_S cpu_2S ns/event
  for ((i = 0; i < n; i++)); do
    [ -f "$tmp/events.$i" ] || continue
    local c0 c1 e0 e2
    c0=$(median < "$tmp/runs.$i.${short[i]}")
    c1=$(median < "$tmp/runs.$i.${dur[i]}")
    read -r e0 e2 < "$tmp/events.$i"
    awk -v name="${names[i]}" -v d="${dur[i]}" -v s="${short[i]}" -v e0="$e0" -v e2="$e2" \
      -v c0="$c0" -v c1="$c1" 'BEGIN {
      de = e2 - e0
      printf "%-28s %6d %10d %9.0f %9.3f %9.3f %9.0f\n", name, s, de, de / (d - s), c0, c1,
             (de > 0 ? (c1 - c0) * 1e9 / de : 0) }'
  done
  rm -f "$tmp"/runs.* "$tmp"/events.* "$tmp"/err
  names=()
  argv=()
  bins=()
}

# POLICIES="a b" limits the tasks and cpus sections to those policies.
policies=(cfs-2.6.23 cfs-2.6.31 cfs-2.6.32 eevdf-6.6 eevdf-6.12 bfs o1 sd)
read -r -a scaled <<< "${POLICIES:-rr ${policies[*]}}"
# rr with the limit loop's 4 ms slice: the same schedule as the limit loop.
rr4=(--policy rr --param slice_ns=4000000)

for section in "${sections[@]}"; do
  case "$section" in
    limit)
      echo "== the practical limit: bench/limit_loop.cpp, 1 simulated second, CPU time of $((20 * repeats)) runs"
      "$build/bench/schedlab_limit_loop" 1 $((20 * repeats))
      ;;
    policies)
      echo "== each policy on the bench load, 1 simulated second (analyzer and --json on)"
      add_point "rr slice 4ms" "${rr4[@]}"
      for p in "${policies[@]}"; do add_point "$p" --policy "$p"; done
      measure
      ;;
    tasks)
      echo "== tasks: 1k/10k/100k tasks (half hogs, half sleepers) on 64 CPUs, the simulation alone"
      for p in "${scaled[@]}"; do
        for n in 1000 10000 100000; do
          add_point "$p ${n} tasks" --policy "$p" \
            --set /tasks/hog/instance=$((n / 2)) --set /tasks/sleeper/instance=$((n / 2))
        done
      done
      measure_delta
      ;;
    cpus)
      echo "== CPUs: 4/64/256/1024 CPUs, 1000 tasks, the simulation alone"
      for p in "${scaled[@]}"; do
        for c in 4 64 256 1024; do add_point "$p ${c} cpus" --policy "$p" --cpus "$c"; done
      done
      measure_delta
      ;;
    memory)
      echo "== memory in simulated time: 1/10/100 s of the bench load (one run each)"
      for d in 1 10 100; do add_point "cfs-2.6.32 ${d} s" --policy cfs-2.6.32 --duration "$d"; done
      add_point "cfs-2.6.32 100k tasks 10 s" --policy cfs-2.6.32 --duration 10 \
        --set /tasks/hog/instance=50000 --set /tasks/sleeper/instance=50000
      measure 1  # one run each: peak memory does not depend on the neighbours
      ;;
    sweep)
      echo "== a sweep: 2 policies x 4 sleeper counts x 2 repeats, wall seconds with --jobs 1 and 2"
      for jobs in 1 2 1 2 1 2; do
        /usr/bin/time -f "%e" -o "$tmp/wall" "$bin" sweep "$load" --policy cfs-2.6.32,bfs \
          --vary /tasks/sleeper/instance=100,200,300,400 --set /global/duration=1 --repeat 2 \
          --jobs "$jobs" --out "$tmp/sweep.$jobs.csv" > /dev/null
        echo "$jobs $(cat "$tmp/wall")" >> "$tmp/sweep"
      done
      for jobs in 1 2; do
        echo "--jobs $jobs: $(awk -v j=$jobs '$1 == j {print $2}' "$tmp/sweep" | median) s wall (median of 3)"
      done
      for jobs in 1 2; do
        "$bin" merge "$tmp/sweep.$jobs.csv" --out "$tmp/sorted.$jobs.csv"  # merge's row order
        cut -d, -f1-8 "$tmp/sorted.$jobs.csv" > "$tmp/cut.$jobs.csv"
      done
      cmp -s "$tmp/cut.1.csv" "$tmp/cut.2.csv" && echo "results identical with --jobs 1 and 2"
      rm -f "$tmp/sweep"
      ;;
    *)
      echo "bench.sh: unknown section $section (limit policies tasks cpus memory sweep)" >&2
      exit 2
      ;;
  esac
done
