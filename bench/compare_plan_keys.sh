#!/bin/bash
# Do two seqflow binaries give every shipped pipeline the same cache keys and the same plan?
#   bench/compare_plan_keys.sh OLD_SEQFLOW NEW_SEQFLOW
# For each pipelines/*.yaml and pipelines/tests/*.yaml, runs `seqflow plan` on an empty cache
# under strace and lists the entry files it looks up (one per node instance: the keys), then the
# plan's text and exit code; prints "same" or the first difference. Needs strace and the data
# ($SEQFLOW_DATA); pipelines whose data is generated fail alike in both.
set -u
old=$1 new=$2
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for bin in "$old" "$new"; do
  out=$work/$(basename "$bin")-$RANDOM.txt
  echo "$out" >> "$work/lists"
  for p in "$root"/pipelines/*.yaml "$root"/pipelines/tests/*.yaml; do
    echo "== ${p#$root/}" >> "$out"
    strace -f -e trace=access -o "$work/trace" "$bin" plan "$p" --cache "$work/cache" > "$work/plan" 2>&1
    echo "exit $?" >> "$out"
    grep -o '[0-9a-f]\{32\}\.sfa' "$work/trace" >> "$out"
    cat "$work/plan" >> "$out"
  done
done
lists=($(cat "$work/lists"))
echo "$(grep -c '\.sfa$' "${lists[1]}") keys over $(grep -c '^==' "${lists[1]}") pipelines"
diff "${lists[0]}" "${lists[1]}" | head -20
cmp -s "${lists[0]}" "${lists[1]}" && echo same
