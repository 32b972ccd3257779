#!/usr/bin/env bash
# slurm_smoke: the test cluster (cluster.sh, fixture slurm_cluster) does what the Slurm executor
# relies on: throttled job arrays with per-task output files, a failed job leaving squeue with its
# stderr kept, scancel stopping a running array's processes, afterok dependencies, and arrays of
# 10^5 tasks.
# Usage: smoke_test.sh WORKDIR, with SLURM_CONF set to the cluster's slurm.conf.
set -euo pipefail

fail() {
  echo "slurm_smoke: FAIL: $*" >&2
  exit 1
}

[[ $# -eq 1 ]] || fail "usage: $0 WORKDIR"
for p in sbatch squeue scancel scontrol; do
  command -v "$p" >/dev/null 2>&1 || fail "$p not found (apt-get install slurm-wlm munge)"
done
[[ -n ${SLURM_CONF:-} && -f $SLURM_CONF ]] || fail "SLURM_CONF='${SLURM_CONF:-}' is not a file (is the slurm_cluster fixture up?)"

work=$(realpath -m -- "$1")
rm -rf "$work"
mkdir -p "$work"
submitted=()
trap 'if [[ ${#submitted[@]} -gt 0 ]]; then scancel "${submitted[@]}" 2>/dev/null || true; fi' EXIT

# submit SBATCH_ARGS...: the job id goes to $job_id (and to the cleanup list).
submit() {
  job_id=$(sbatch --parsable "$@") || fail "sbatch $* failed"
  [[ $job_id =~ ^[0-9]+$ ]] || fail "sbatch --parsable printed '$job_id'"
  submitted+=("$job_id")
}

# The states of a job's tasks (one line per task), with one squeue call; empty once the job has
# left the queue. Slurm answers "Invalid job id" (exit 1) once MinJobAge has purged the record.
task_states() {
  local out
  if out=$(squeue -h -r -j "$1" -o %T 2>&1); then
    echo "$out"
  elif [[ $out == *"Invalid job id"* ]]; then
    return 0
  else
    fail "squeue -j $1: $out"
  fi
}

# wait_gone ID: poll until the job has left the queue; the most tasks seen running at once go to
# $peak_running.
wait_gone() {
  local id=$1 deadline=$((SECONDS + 60)) states running
  peak_running=0
  while true; do
    states=$(task_states "$id") || exit 1
    [[ -n $states ]] || break
    running=$(grep -c '^RUNNING$' <<<"$states" || true)
    ((running <= peak_running)) || peak_running=$running
    ((SECONDS < deadline)) || fail "job $id still queued after 60 s: $(tr '\n' ' ' <<<"$states")"
    sleep 0.3
  done
}

# A zombie counts as gone: a process reparented to an init that reaps slowly stays one a while.
alive() {
  local state
  state=$(ps -o stat= -p "$1") && [[ $state != Z* ]]
}

wait_for_file() {
  local deadline=$((SECONDS + 60))
  until [[ -s $1 ]]; do
    ((SECONDS < deadline)) || fail "$1 not written after 60 s"
    sleep 0.2
  done
}

# 1. A throttled array: six one-core tasks, two at a time (on any number of cores: %2; and at
# least two, or the node is allocated whole), each with its own stdout and stderr.
mkdir -p "$work/array"
cat >"$work/array/task.sh" <<EOF
#!/bin/bash
echo "\$SLURM_ARRAY_JOB_ID \$SLURM_ARRAY_TASK_ID" >"$work/array/result_\$SLURM_ARRAY_TASK_ID"
echo "stderr of task \$SLURM_ARRAY_TASK_ID" >&2
sleep 1
EOF
submit --array=0-5%2 -c 1 --mem=100M -o "$work/array/%A_%a.out" -e "$work/array/%A_%a.err" \
  "$work/array/task.sh"
array_id=$job_id
wait_gone "$array_id"
((peak_running == 2)) || fail "array $array_id (%2, -c 1): at most $peak_running tasks seen running at once, want 2"
for task in 0 1 2 3 4 5; do
  [[ -f $work/array/result_$task ]] || fail "array $array_id: task $task wrote no result"
  [[ $(<"$work/array/result_$task") == "$array_id $task" ]] ||
    fail "array $array_id: task $task wrote '$(<"$work/array/result_$task")'"
  [[ -f $work/array/${array_id}_$task.out ]] || fail "array $array_id: no stdout file for task $task"
  [[ $(<"$work/array/${array_id}_$task.err") == "stderr of task $task" ]] ||
    fail "array $array_id: stderr file of task $task is wrong"
done
echo "array $array_id: 6 tasks done, 2 at once"

# 2. A job that exits 3 leaves the queue, and its stderr file is there to report.
mkdir -p "$work/fail"
submit -c 1 --mem=100M -o "$work/fail/%j.out" -e "$work/fail/%j.err" \
  --wrap 'echo "failing on purpose" >&2; exit 3'
failing_id=$job_id
wait_gone "$failing_id"
[[ -f $work/fail/$failing_id.err ]] || fail "job $failing_id (exit 3): no stderr file"
grep -q 'failing on purpose' "$work/fail/$failing_id.err" || fail "job $failing_id: stderr file lacks its message"
echo "job $failing_id: exit 3, gone from squeue, stderr kept"

# 3. scancel of a running array stops its processes (the batch script and its child).
mkdir -p "$work/cancel"
cat >"$work/cancel/task.sh" <<EOF
#!/bin/bash
sleep 300 &
echo "\$\$ \$!" >"$work/cancel/pids_\$SLURM_ARRAY_TASK_ID"
wait
EOF
submit --array=0-1 -c 1 --mem=100M -o /dev/null -e /dev/null "$work/cancel/task.sh"
sleeping_id=$job_id
wait_for_file "$work/cancel/pids_0"
wait_for_file "$work/cancel/pids_1"
read -r -a pids <<<"$(cat "$work/cancel/pids_0" "$work/cancel/pids_1" | tr '\n' ' ')"
for pid in "${pids[@]}"; do
  alive "$pid" || fail "array $sleeping_id: process $pid not running before scancel"
done
scancel "$sleeping_id" || fail "scancel $sleeping_id failed"
wait_gone "$sleeping_id"
deadline=$((SECONDS + 30))
for pid in "${pids[@]}"; do
  while alive "$pid"; do
    ((SECONDS < deadline)) || fail "array $sleeping_id: process $pid still alive after scancel"
    sleep 0.2
  done
done
echo "array $sleeping_id: scancel stopped processes ${pids[*]}"

# 4. afterok holds a job until its dependency has finished, and never runs it after a failure.
mkdir -p "$work/dep"
submit -c 1 --mem=100M -o /dev/null -e /dev/null \
  --wrap "sleep 3; touch '$work/dep/first_done'"
first_id=$job_id
submit -c 1 --mem=100M -o /dev/null -e /dev/null --dependency="afterok:$first_id" \
  --wrap "if [ -e '$work/dep/first_done' ]; then echo after; else echo before; fi >'$work/dep/second_saw'"
second_id=$job_id
submit -c 1 --mem=100M -o /dev/null -e /dev/null --wrap 'exit 1'
doomed_first_id=$job_id
submit -c 1 --mem=100M -o /dev/null -e /dev/null --dependency="afterok:$doomed_first_id" \
  --wrap "touch '$work/dep/doomed_ran'"
doomed_second_id=$job_id
reason=$(squeue -h -j "$second_id" -o %r) || fail "squeue -j $second_id failed"
[[ $reason == Dependency ]] || fail "job $second_id: pending reason '$reason' while $first_id runs, want Dependency"
wait_gone "$second_id"
[[ -f $work/dep/second_saw ]] || fail "job $second_id (afterok:$first_id) never ran"
[[ $(<"$work/dep/second_saw") == after ]] || fail "job $second_id ran before $first_id finished"
deadline=$((SECONDS + 30))
until [[ $(squeue -h -j "$doomed_second_id" -o %r 2>/dev/null) == DependencyNeverSatisfied ]]; do
  ((SECONDS < deadline)) || fail "job $doomed_second_id (afterok on a failed job) not marked DependencyNeverSatisfied"
  sleep 0.3
done
[[ ! -e $work/dep/doomed_ran ]] || fail "job $doomed_second_id ran although $doomed_first_id failed"
scancel "$doomed_second_id"
wait_gone "$doomed_second_id"
echo "job $second_id waited for $first_id (afterok); job $doomed_second_id held forever after $doomed_first_id failed"

# 5. An array as wide as a 10^5-node sweep is accepted (MaxArraySize), held, then cancelled.
submit --hold --array=0-100000 -c 1 --mem=100M -o /dev/null -e /dev/null --wrap true
wide_id=$job_id
scancel "$wide_id" || fail "scancel $wide_id failed"
wait_gone "$wide_id"
echo "array $wide_id: 100001 tasks accepted"

echo "slurm_smoke: OK"
