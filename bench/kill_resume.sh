#!/usr/bin/env bash
# The kill-and-resume figure (issue 17): `seqflow run pipelines/conll2000_crf.yaml` (the whole
# grid: first- and second-order CRFs on CoNLL-2000, each decoded both ways; ABLATION=decoder runs
# the first-order CRF only) SIGKILLed KILLS times, each partial run started again on the same
# cache (resuming every iterative node from its last checkpoint), then a run to the end. Prints
# the F1s and the CRF models' hashes beside those of one uninterrupted run (they must be equal),
# and the CPU time (user + sys) of all the partial runs and the final one ÷ that of the
# uninterrupted run. The uninterrupted run uses the default --checkpoint-seconds (30), so the
# ratio charges every cost of checkpointing and restarting.
# A partial run is killed after a delay drawn uniformly from [MIN_DELAY, MAX_DELAY] seconds of wall
# time from its start (seeded by SEED), wherever it is in the pipeline; the kills stop early when
# a partial run finishes before its kill.
#
# usage: bench/kill_resume.sh   (env: SEQFLOW=build/seqflow KILLS=30 CHECKPOINT_SECONDS=2
#                                MIN_DELAY=2 MAX_DELAY=6 SEED=17 THREADS=2 ABLATION=
#                                SEQFLOW_DATA=../shared/data)
set -euo pipefail
cd "$(dirname "$0")/.."
SEQFLOW=${SEQFLOW:-build/seqflow}
KILLS=${KILLS:-30}
CHECKPOINT_SECONDS=${CHECKPOINT_SECONDS:-2}
MIN_DELAY=${MIN_DELAY:-2}
MAX_DELAY=${MAX_DELAY:-6}
SEED=${SEED:-17}
THREADS=${THREADS:-2}
export SEQFLOW_DATA=${SEQFLOW_DATA:-$(cd .. && pwd)/shared/data}
WORK=$(mktemp -d /tmp/seqflow-kill-resume.XXXXXX)
# On any exit: the partial run still going (its timer's child), then the caches.
trap 'for timer in $(jobs -p); do pkill -KILL -P "$timer" || true; done; rm -rf "$WORK"' EXIT
RUN=(run pipelines/conll2000_crf.yaml -j "$THREADS")
[[ -n "${ABLATION:-}" ]] && RUN+=(--ablation "$ABLATION")

# user + sys of a /usr/bin/time -f "%U %S %e" file (its last line: a killed child's has a line before).
cpu_of() { tail -n 1 "$1" | awk '{ printf "%.3f", $1 + $2 }'; }
f1_of() { grep -o 'f1=[0-9.]*' "$1" | cut -d= -f2 | tr '\n' ' '; }
# sha256 of the crf.train entry's artifact bytes (the model: weights, dictionary, labels).
model_hash() {
  {
  /usr/bin/python3 - "$1" <<'PY'
import hashlib, pathlib, struct, sys
def read_str(b, i):
    n = struct.unpack_from("<Q", b, i)[0]; i += 8
    return b[i:i + n], i + n
for path in pathlib.Path(sys.argv[1]).rglob("*.sfa"):
    b = path.read_bytes()[28:]  # magic, version, length, checksum
    kind, i = read_str(b, 0)
    if kind != b"crf.train":
        continue
    _, i = read_str(b, i)            # artifact type
    i += 4 + 8                       # artifact version, seconds
    n = struct.unpack_from("<Q", b, i)[0]; i += 8
    for _ in range(n):
        _, i = read_str(b, i); i += 8
    n = struct.unpack_from("<Q", b, i)[0]; i += 8
    for _ in range(n):
        _, i = read_str(b, i); _, i = read_str(b, i)
    artifact, _ = read_str(b, i)
    print(hashlib.sha256(artifact).hexdigest()[:16])
PY
  } | sort | tr '\n' ' '
}

/usr/bin/time -f "%U %S %e" -o "$WORK/ref.time" "$SEQFLOW" "${RUN[@]}" --cache "$WORK/ref" > "$WORK/ref.log" 2>&1
echo "uninterrupted: cpu $(cpu_of "$WORK/ref.time") s, wall $(tail -n 1 "$WORK/ref.time" | cut -d' ' -f3) s"

RANDOM=$SEED
total=0
kills=0
for ((i = 1; i <= KILLS; ++i)); do
  # $RANDOM drawn here, not inside $(...): bash 5.1+ reseeds it in a subshell, and the delays
  # would not follow SEED.
  r=$RANDOM
  delay=$(awk -v r="$r" -v lo="$MIN_DELAY" -v hi="$MAX_DELAY" 'BEGIN { printf "%.2f", lo + (hi - lo) * r / 32767 }')
  /usr/bin/time -f "%U %S %e" -o "$WORK/part$i.time" "$SEQFLOW" "${RUN[@]}" --cache "$WORK/killed" \
    --checkpoint-seconds "$CHECKPOINT_SECONDS" > "$WORK/part$i.log" 2>&1 &
  timer=$!
  sleep "$delay"
  child=$(pgrep -P "$timer" || true)
  [[ -n "$child" ]] && kill -KILL "$child" 2>/dev/null || true
  finished=0
  wait "$timer" && finished=1 || true
  total=$(awk -v a="$total" -v b="$(cpu_of "$WORK/part$i.time")" 'BEGIN { print a + b }')
  if ((finished)); then
    echo "partial run $i: the pipeline finished before its kill (after ${delay} s); stopping the kills"
    break
  fi
  kills=$((kills + 1))
  echo "partial run $i: killed after ${delay} s, cpu $(cpu_of "$WORK/part$i.time") s$(grep -o 'resuming from' "$WORK/part$i.log" | head -1 | sed 's/^/, /')"
done
/usr/bin/time -f "%U %S %e" -o "$WORK/final.time" "$SEQFLOW" "${RUN[@]}" --cache "$WORK/killed" \
  --checkpoint-seconds "$CHECKPOINT_SECONDS" > "$WORK/final.log" 2>&1
total=$(awk -v a="$total" -v b="$(cpu_of "$WORK/final.time")" 'BEGIN { print a + b }')

echo "kills: $kills (checkpoint every $CHECKPOINT_SECONDS s, delays U[$MIN_DELAY, $MAX_DELAY] s, seed $SEED)"
echo "F1: uninterrupted $(f1_of "$WORK/ref.log"), killed and resumed $(f1_of "$WORK/final.log")"
echo "model hash: uninterrupted $(model_hash "$WORK/ref"), killed and resumed $(model_hash "$WORK/killed")"
echo "checkpoint files left in the cache: $(find "$WORK/killed/checkpoints" -type f 2>/dev/null | wc -l)"
echo "cpu: all runs $total s / uninterrupted $(cpu_of "$WORK/ref.time") s = $(awk -v a="$total" -v b="$(cpu_of "$WORK/ref.time")" 'BEGIN { printf "%.2f", a / b }')x"
