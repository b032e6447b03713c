#!/usr/bin/env bash
# Golden outputs: every shipped scenario under every registered policy (--json, --events,
# --trace, 1 simulated second), `analyze` of the committed traces, and
# `reproduce all --quick` (CSV without wall-clock columns, SVG, HTML, tables).
# A refactor or speed-up must leave all of them byte-identical.
#
#   tests/golden/golden.sh check [BINARY]    compare with tests/golden/expected.sha256
#   tests/golden/golden.sh update [BINARY]   regenerate expected.sha256 (a deliberate change)
#   tests/golden/golden.sh write DIR [BINARY] write the outputs themselves into DIR (to diff)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
mode="${1:-check}"
if [ "$mode" = write ]; then out="$2"; bin="${3:-$root/build/schedlab}"; else
  out="$(mktemp -d)"; trap 'rm -rf "$out"' EXIT; bin="${2:-$root/build/schedlab}"; fi
mkdir -p "$out"
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
cd "$root"

policies="rr cfs-2.6.23 cfs-2.6.31 cfs-tip-2009-09 cfs-tip-2009-10 cfs-2.6.32 eevdf eevdf-6.6 eevdf-6.12 bfs bfs-0.232 bfs-0.304 bfs-0.311 o1 sd"
run_one() {  # scenario policy
  local s="$1" p="$2" base
  base="$out/run/$(basename "$s" .json).$p"
  set +e
  "$bin" run "$s" --policy "$p" --duration 1 --json --events "$base.events.csv" \
    --trace "$base.trace.json" > "$base.json" 2> "$base.stderr"
  echo "rc=$?" >> "$base.stderr"
  set -e
}
mkdir -p "$out/run"
export -f run_one; export bin out
for s in scenarios/*.json; do
  for p in $policies; do echo "$s $p"; done
done | xargs -P "$(nproc)" -n 2 bash -c 'run_one "$0" "$1"'

mkdir -p "$out/analyze"
for t in tests/data/*.txt; do
  n="$(basename "$t" .txt)"
  set +e
  "$bin" analyze "$t" --json --events "$out/analyze/$n.events.csv" \
    --trace "$out/analyze/$n.trace.json" > "$out/analyze/$n.json" 2> "$out/analyze/$n.stderr"
  echo "rc=$?" >> "$out/analyze/$n.stderr"
  set -e
done

mkdir -p "$out/reproduce"
"$bin" reproduce all --quick --jobs "$(nproc)" --out "$out/reproduce" 2>/dev/null |
  sed "s|$out|OUT|g" > "$out/reproduce.stdout"
# Drop the wall-clock columns (the only non-deterministic figures) and sort the rows
# (written as runs finish).
for f in "$out"/reproduce/*.csv; do
  python3 - "$f" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))
if rows:
    keep = [i for i, h in enumerate(rows[0]) if not h.startswith('wall')]
    with open(sys.argv[1], 'w', newline='') as f:
        w = csv.writer(f, lineterminator='\n')
        w.writerow([rows[0][i] for i in keep])
        for r in sorted(rows[1:]):
            w.writerow([r[i] for i in keep if i < len(r)])
PY
done

(cd "$out" && find . -type f ! -name '*.sha256' | LC_ALL=C sort | xargs sha256sum) > "$out/actual.sha256"
case "$mode" in
  update) cp "$out/actual.sha256" "$here/expected.sha256"
          echo "golden: $(wc -l < "$here/expected.sha256") files recorded" ;;
  write)  echo "golden: outputs in $out" ;;
  check)
    if diff <(cat "$here/expected.sha256") "$out/actual.sha256" > "$out/diff.txt"; then
      echo "golden: $(wc -l < "$out/actual.sha256") files, all identical"
    else
      echo "golden: outputs differ:"; grep '^[<>]' "$out/diff.txt" | awk '{print $1, $3}' | sort -k2 | uniq | head -50
      exit 1
    fi ;;
esac
