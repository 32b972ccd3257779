#!/bin/bash
# Our HMM kernels against pomegranate 0.14.8 on the same synthetic workload, in one invocation
# (the machine is shared and noisy: compare the ratios of one run, not digits across runs).
#
#   bench/run_hmm_peers.sh [BUILD_DIR]      (default: build; needs target hmm_kernels_bench)
#
# Prints both tools' JSON and a markdown table: K, tokens/s of forward-backward + expected counts
# and of Viterbi for each tool, and our/pomegranate ratios. One thread each. About a minute.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../build}"
bench_bin="$build/bench/kernels/hmm_kernels_bench"
[[ -x "$bench_bin" ]] || { echo "missing $bench_bin: cmake --build $build --target hmm_kernels_bench" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

"$bench_bin" --benchmark_filter='BM_(ForwardBackwardCounts|Viterbi)/' --benchmark_repetitions=5 \
  --benchmark_min_time=0.3 --benchmark_format=json >"$tmp/ours.json" 2>/dev/null
/usr/bin/python3 "$here/peers/pomegranate_hmm_speed.py" >"$tmp/pomegranate.jsonl"
cat "$tmp/pomegranate.jsonl"

/usr/bin/python3 - "$tmp/ours.json" "$tmp/pomegranate.jsonl" <<'PY'
import json, sys
ours = {}
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    if b.get("run_type") != "iteration":
        continue
    kind, k = b["run_name"].split("/")
    key = ("fb" if kind == "BM_ForwardBackwardCounts" else "viterbi", int(k))
    ours[key] = max(ours.get(key, 0), b["tokens_per_s"])   # best of the repetitions
peer = {r["states"]: r for r in map(json.loads, open(sys.argv[2]))}
print(json.dumps({"tool": "seqflow", "tokens_per_s": {f"{a}/{k}": round(v) for (a, k), v in sorted(ours.items())}}))
print()
print("| K | ours FB tokens/s | pomegranate FB | ratio | ours Viterbi tokens/s | pomegranate Viterbi | ratio |")
print("|---|---|---|---|---|---|---|")
for k in sorted(peer):
    fb, vit = ours[("fb", k)], ours[("viterbi", k)]
    pfb, pvit = peer[k]["fb_tokens_per_s"], peer[k]["viterbi_tokens_per_s"]
    print(f"| {k} | {fb/1e6:.2f}M | {pfb/1e3:.1f}k | {fb/pfb:,.0f}x | {vit/1e6:.2f}M | {pvit/1e3:.0f}k | {vit/pvit:,.1f}x |")
PY
