#!/usr/bin/env bash
# `make install`'s layout works: the installed binary, run from another folder, finds its
# experiments, scenarios and machines under PREFIX/share/schedlab; the man page and the
# completion are installed; $SCHEDLAB_DATA points it elsewhere.
#   tests/install_test.sh BUILD_DIR
set -euo pipefail
build="$1"
prefix="$(mktemp -d)"
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" > /dev/null
bin="$prefix/bin/schedlab"
for f in share/schedlab/scenarios/demo.json share/schedlab/machines/q9300.json \
         share/schedlab/experiments/E1.json share/schedlab/experiments/E1-table-A.csv \
         share/bash-completion/completions/schedlab; do
  [ -f "$prefix/$f" ] || { echo "install_test: $f not installed"; exit 1; }
done
if command -v help2man > /dev/null && [ ! -f "$prefix/share/man/man1/schedlab.1" ]; then
  echo "install_test: share/man/man1/schedlab.1 not installed"; exit 1
fi
cd "$prefix"
# An unknown experiment names the folder it looked in: the installed one.
msg="$("$bin" reproduce E99 2>&1 || true)"
case "$msg" in *"$prefix/share/schedlab/experiments"*) ;;
  *) echo "install_test: reproduce looked elsewhere: $msg"; exit 1 ;; esac
# A scenario naming ../machines/q9300.json runs from the installed folder.
"$bin" run "$prefix/share/schedlab/scenarios/e1-x264-ultrafast.json" --duration 0.05 > /dev/null
# SCHEDLAB_DATA: another copy of the data is used instead.
mkdir -p "$prefix/other"
cp -r "$prefix/share/schedlab/scenarios" "$prefix/share/schedlab/experiments" "$prefix/other/"
msg="$(SCHEDLAB_DATA="$prefix/other" "$bin" reproduce E99 2>&1 || true)"
case "$msg" in *"$prefix/other/experiments"*) ;;
  *) echo "install_test: SCHEDLAB_DATA ignored: $msg"; exit 1 ;; esac
echo "install_test: ok"
