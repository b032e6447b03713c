#!/usr/bin/env bash
# Instruction counts (valgrind --tool=callgrind, deterministic where wall-clock timing on a
# shared machine is not) of bench-64cpu-1000.json, the 64-CPU / 1000-task load of
# bench_engine.cpp, under each benchmarked policy for 0.2 simulated seconds.
#
#   bench/callgrind.sh [BINARY] [POLICY...]     prints "policy instructions"
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="${1:-$here/../build/schedlab}"
shift || true
policies=("$@")
[ ${#policies[@]} -gt 0 ] ||
  policies=(cfs-2.6.23 cfs-2.6.31 cfs-2.6.32 eevdf-6.6 eevdf-6.12 bfs o1 sd)
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for p in "${policies[@]}"; do
  valgrind --tool=callgrind --callgrind-out-file="$tmp/out" "$bin" run \
    "$here/bench-64cpu-1000.json" --policy "$p" --duration 0.2 > /dev/null 2> "$tmp/log"
  echo "$p $(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$tmp/log")"
done
