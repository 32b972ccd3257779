#!/bin/bash
# crf.train on CoNLL-2000 (pipelines/conll2000_crf.yaml, 2 threads then 1, cold cache each) and
# CRFsuite from npm (../shared/bench/peers/crf_crfsuite_npm.sh) back to back, so the ratio comes
# from one quiet stretch of the shared machine. About three minutes.
#
#   bench/run_crf_peers.sh [BUILD_DIR]      (default: build; needs target seqflow)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../build}"
seqflow="$build/seqflow"
[[ -x "$seqflow" ]] || { echo "missing $seqflow: cmake --build $build --target seqflow" >&2; exit 1; }
data="${SEQFLOW_DATA:-$here/../../shared/data}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for threads in 2 1; do
  rm -rf "$tmp/run"
  /usr/bin/time -v -o "$tmp/time" "$seqflow" run "$here/../pipelines/conll2000_crf.yaml" --ablation decoder \
    --cache "$tmp/run/cache" --out "$tmp/run/out" -j "$threads" > "$tmp/log" 2>&1
  echo "seqflow -j$threads: $(grep 'computed crf' "$tmp/log" | sed 's/.*computed //'); $(grep -m1 ' f1=' "$tmp/log" | xargs);" \
    "peak $(awk -F': ' '/Maximum resident/ {printf "%.0f MB", $2/1024}' "$tmp/time");" \
    "last iteration,objective,...: $(tail -1 "$tmp/run/out/run-1/crf.objective.csv")"
done
bash "$here/../../shared/bench/peers/crf_crfsuite_npm.sh" "$data/conll2000"
