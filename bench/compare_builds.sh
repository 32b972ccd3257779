#!/usr/bin/env bash
# Before/after timing of one Google Benchmark binary from two builds, in one invocation: the two
# binaries run alternately ROUNDS times (so machine load hits both alike) and each benchmark's
# best real time per build is compared.
#   bench/compare_builds.sh OLD_BUILD_DIR NEW_BUILD_DIR BENCH [FILTER] [ROUNDS]
# e.g. bench/compare_builds.sh ../baseline/build build hmm_kernels_bench 'BM_(Viterbi|Forward)' 3
set -euo pipefail
old="$1/bench/kernels/$3"
new="$2/bench/kernels/$3"
filter="${4:-.}"
rounds="${5:-3}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
for r in $(seq "$rounds"); do
  for side in old new; do
    bin="$old"; [ "$side" = new ] && bin="$new"
    "$bin" --benchmark_filter="$filter" --benchmark_format=json --benchmark_out="$out/$side-$r.json" \
      --benchmark_out_format=json > /dev/null
  done
done
python3 - "$out" "$rounds" <<'EOF'
import json, sys
folder, rounds = sys.argv[1], int(sys.argv[2])
best = {"old": {}, "new": {}}
order = []
for side in best:
    for r in range(1, rounds + 1):
        for b in json.load(open(f"{folder}/{side}-{r}.json"))["benchmarks"]:
            name, t = b["name"], b["real_time"]
            if name not in order:
                order.append(name)
            best[side][name] = min(best[side].get(name, t), t)
print(f"| benchmark | before (ms) | after (ms) | after / before |")
print(f"|---|---|---|---|")
for name in order:
    o, n = best["old"].get(name), best["new"].get(name)
    if o is None or n is None:
        print(f"| {name} | {o or '-'} | {n or '-'} | - |")
        continue
    print(f"| {name} | {o:.2f} | {n:.2f} | {n / o:.3f} |")
EOF
