#!/usr/bin/env bash
# Kernel times of the portable binary under each SEQFLOW_ISA variant this CPU runs against a
# -march=native build of the same commit, in one invocation: the binaries run alternately ROUNDS
# times (so machine load hits all alike) and each benchmark's best real time is compared.
#   bench/isa_variants.sh NATIVE_BUILD_DIR PORTABLE_BUILD_DIR BENCH [FILTER] [ROUNDS]
# e.g. bench/isa_variants.sh build-native build crf_bench 'BM_CrfObjective' 3
# TIME=cpu_time compares CPU times instead (steadier when other jobs share the cores).
set -euo pipefail
native="$1/bench/kernels/$3"
portable="$2/bench/kernels/$3"
filter="${4:-.}"
rounds="${5:-3}"
variants=(baseline)
grep -q avx2 /proc/cpuinfo && variants+=(avx2)
grep -q avx512f /proc/cpuinfo && variants+=(avx512)
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
for r in $(seq "$rounds"); do
  "$native" --benchmark_filter="$filter" --benchmark_out="$out/native-$r.json" --benchmark_out_format=json > /dev/null
  for v in "${variants[@]}"; do
    SEQFLOW_ISA="$v" "$portable" --benchmark_filter="$filter" --benchmark_out="$out/$v-$r.json" \
      --benchmark_out_format=json > /dev/null
  done
done
python3 - "$out" "$rounds" "${TIME:-real_time}" native "${variants[@]}" <<'PY'
import json, sys
folder, rounds, metric, sides = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
best, order = {s: {} for s in sides}, []
for s in sides:
    for r in range(1, rounds + 1):
        for b in json.load(open(f"{folder}/{s}-{r}.json"))["benchmarks"]:
            name, t = b["name"], b[metric]
            if name not in order:
                order.append(name)
            best[s][name] = min(best[s].get(name, t), t)
head = " | ".join(f"portable {s} / native" for s in sides[1:])
print(f"| benchmark | native ({'ms'}) | {head} |")
print("|---|---|" + "---|" * (len(sides) - 1))
for name in order:
    n = best["native"].get(name)
    cells = " | ".join(f"{best[s][name] / n:.3f}" if n and name in best[s] else "-" for s in sides[1:])
    print(f"| {name} | {n:.3f} | {cells} |")
PY
