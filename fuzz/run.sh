#!/usr/bin/env bash
# Runs each libFuzzer harness of a fuzz build for FUZZ_SECONDS (default 60), two at a time,
# on a corpus seeded from the shipped scenarios and machines, rt-app's examples, the test
# traces (tracefs text, trace-cmd report, systrace HTML) and fuzz/seeds; fails if any
# harness found a crash, a sanitizer report, a timeout (10 s for one input) or an
# out-of-memory (2 GB). A finding is saved as
# BUILD/artifacts/<target>-crash-... (replay: BUILD/fuzz/fuzz_<target> FILE).
#
#   fuzz/run.sh [BUILD]        (make test and make fuzz build build-asan with clang and run this)
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
build="$(cd "${1:-$root/build-asan}" && pwd)"
seconds="${FUZZ_SECONDS:-60}"
targets="${FUZZ_TARGETS:-scenario rtapp set ftrace simulate}"  # FUZZ_TARGETS: a subset
rtapp_examples=/usr/share/doc/rt-app/examples

seed() {  # target, then files to copy into its corpus
  local t="$1"
  shift
  mkdir -p "$build/corpus/$t"
  for f in "$@"; do [ -f "$f" ] && cp -f "$f" "$build/corpus/$t/seed-$(basename "$f")"; done
  return 0
}
seed scenario "$root"/scenarios/*.json "$root"/machines/*.json "$root"/experiments/*.json
seed rtapp "$rtapp_examples"/*.json "$rtapp_examples"/*/*.json "$root"/scenarios/*.json
seed set "$here"/seeds/set/*
seed ftrace "$root"/tests/data/*.txt "$root"/tests/data/formats/*.txt \
  "$root"/tests/data/formats/*.html "$here"/seeds/ftrace/*
seed simulate "$root"/scenarios/*.json
mkdir -p "$build/artifacts" "$build/logs"

dict_of() {
  case "$1" in
    ftrace) echo "$here/ftrace.dict" ;;
    set) echo "$here/json.dict" ;;
    *) echo "$here/json.dict" ;;
  esac
}

# Inputs longer than this are cut: a 100 KB trace takes ~0.3 s through the sanitizers and
# the analyzer, and the long-trace paths are the short-trace paths repeated.
max_len_of() {
  case "$1" in
    ftrace) echo 16384 ;;
    *) echo 65536 ;;
  esac
}

run_one() {
  local t="$1"
  local start end rc
  start=$(date +%s)
  "$build/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -max_len="$(max_len_of "$t")" -dict="$(dict_of "$t")" -artifact_prefix="$build/artifacts/$t-" \
    "$build/corpus/$t" > "$build/logs/$t.log" 2>&1
  rc=$?
  end=$(date +%s)
  local runs
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$build/logs/$t.log" | tail -1)
  printf '%-9s %s executions in %s s, corpus %s files: %s\n' "$t" "${runs:-?}" "$((end - start))" \
    "$(ls "$build/corpus/$t" | wc -l)" "$([ "$rc" = 0 ] && echo ok || echo "FAILED (rc $rc, see $build/logs/$t.log)")"
  return "$rc"
}
export -f run_one dict_of max_len_of
export build seconds here

failed=0
echo "fuzzing each target for $seconds s, two at a time"
printf '%s\n' $targets | xargs -P 2 -I{} bash -c 'run_one {}' || failed=1
if [ "$failed" != 0 ]; then
  echo "fuzz: a harness found a problem; the inputs are in $build/artifacts" >&2
  exit 1
fi
echo "fuzz: no crash, sanitizer report, timeout or out-of-memory"
