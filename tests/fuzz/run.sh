#!/usr/bin/env bash
# Runs the fuzz targets of an instrumented build (Makefile's `make fuzz`), two at a time, each for
# SECONDS, on seeds written fresh (make_seeds.py) plus the corpus earlier runs grew in BUILD/fuzz.
# Prints each target's executions and findings (crash, timeout > 10 s, leak, > 2 GB); a finding's
# input is kept in BUILD/fuzz/TARGET/findings/ (replay: BUILD/tests/fuzz/TARGET FILE). Exits 1
# when any target found anything.
# usage: run.sh BUILD_DIR SECONDS TARGET...
set -euo pipefail
build=$(realpath "$1")
seconds=$2
shift 2
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$build/fuzz
rm -rf "$work/seeds" "$work/seed-cache" "$work/seed-out"
mkdir -p "$work"

# Real cache entries for artifact_fuzz: the tiny pipelines run by this build's own seqflow.
for pipeline in tiny_hmm tiny_homotopy; do
  "$build/seqflow" run "$src/pipelines/tests/$pipeline.yaml" --cache "$work/seed-cache" \
    --out "$work/seed-out/$pipeline" >"$work/seed-run-$pipeline.log" 2>&1
done
python3 "$src/tests/fuzz/make_seeds.py" "$src" "$work/seed-cache" "$work/seeds"

# pipeline_fuzz without libFuzzer's entropic schedule: its bookkeeping of every feature's
# frequency (a 4 MB table, a cache miss per feature) took 62% of an execution, as the front end
# touches ~20k features per input; without it: 2.5-3.3x the executions per second and no less
# coverage in the same time (tests/fuzz/README.md).
extra_flags() { [[ $1 == pipeline_fuzz ]] && echo -entropic=0; true; }

run_target() {
  local target=$1
  rm -rf "$work/$target/findings"
  mkdir -p "$work/$target/corpus" "$work/$target/findings" "$work/seeds/$target"
  # shellcheck disable=SC2046
  "$build/tests/fuzz/$target" $(extra_flags "$target") -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$work/$target/findings/" \
    "$work/$target/corpus" "$work/seeds/$target" >"$work/$target/log" 2>&1 || true
}

running=0
for target in "$@"; do
  if ((running == 2)); then
    wait -n
    running=$((running - 1))
  fi
  run_target "$target" &
  running=$((running + 1))
done
wait

status=0
for target in "$@"; do
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$target/log" | tail -1)
  findings=$(find "$work/$target/findings" -type f | wc -l)
  echo "$target: ${execs:-?} execs in ${seconds} s, $findings findings"
  if ((findings > 0)) || [[ -z $execs ]]; then
    status=1
    find "$work/$target/findings" -type f
    grep -m1 -A12 -E '^==[0-9]+==ERROR|runtime error|Test unit written' "$work/$target/log" || tail -20 "$work/$target/log"
  fi
done
exit $status
