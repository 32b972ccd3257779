#!/usr/bin/env bash
# A one-node Slurm cluster on 127.0.0.1 for the tests: munged, slurmctld and slurmd with every
# file (config, munge key and socket, spool, state, logs, pid files) under DIR, so nothing reads
# /etc/slurm or /etc/munge and two clusters (two build trees) can run side by side.
#
#   cluster.sh start DIR   (re)start the cluster; returns once the node is idle
#   cluster.sh stop DIR    cancel its jobs, stop its daemons (idempotent); logs stay in DIR
#   cluster.sh env DIR     print the `export` lines a client (sbatch, squeue, ...) needs
#
# START_TIMEOUT (seconds, default 60) bounds the wait for the idle node.
set -euo pipefail

usage() {
  echo "usage: $0 start|stop|env DIR" >&2
  exit 2
}

[[ $# -eq 2 ]] || usage
action=$1
dir=$2
dir=$(realpath -m -- "$dir")
conf=$dir/slurm.conf
munge_socket=$dir/munge/munge.socket
start_timeout=${START_TIMEOUT:-60}
daemons=(munged slurmctld slurmd)

require_programs() {
  local missing=() p
  for p in munged munge unmunge slurmctld slurmd sinfo scontrol squeue scancel python3; do
    command -v "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if [[ ${#missing[@]} -gt 0 ]]; then
    echo "cluster.sh: missing programs: ${missing[*]} (apt-get install slurm-wlm munge)" >&2
    exit 1
  fi
}

# The pid recorded for a daemon, if that process is still the one we started: its command line
# names DIR, so a recycled pid of an unrelated process is never signalled.
live_pid() {
  local pidfile=$dir/run/$1.pid pid
  [[ -f $pidfile ]] || return 1
  pid=$(<"$pidfile")
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  [[ -r /proc/$pid/cmdline ]] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$dir/" || return 1
  echo "$pid"
}

# Two free TCP ports below the kernel's ephemeral range (so outgoing connections never take
# them), picked at random so that clusters started at the same moment do not pick the same ones.
free_ports() {
  python3 - <<'EOF'
import random, socket
ports = []
while len(ports) < 2:
    p = random.randint(20000, 32000)
    if p in ports:
        continue
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.bind(("0.0.0.0", p))
        ports.append(p)
    except OSError:
        pass
    finally:
        s.close()
print(*ports)
EOF
}

write_conf() {
  local ctld_port=$1 slurmd_port=$2 node=$3 topology mem_mb
  # slurmd -C reports the node as slurmd sees it (CPUs, sockets, cores, threads); the memory
  # declared is a bit below the real RAM so the node is never rejected for having less.
  topology=$(slurmd -C -f /dev/null | sed -n 's/^NodeName=[^ ]* \(.*\) RealMemory=.*/\1/p')
  mem_mb=$(awk '/^MemTotal:/ { printf "%d", $2 / 1024 * 0.9 }' /proc/meminfo)
  [[ -n $topology && -n $mem_mb ]] || { echo "cluster.sh: cannot read this machine's CPUs/memory" >&2; exit 1; }
  : >"$dir/plugstack.conf"
  cat >"$conf" <<EOF
# Written by tests/slurm/cluster.sh; rewritten at every start.
ClusterName=seqflow-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$munge_socket
PlugStackConfig=$dir/plugstack.conf
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/slurmd
SlurmctldPidFile=$dir/run/slurmctld.daemon.pid
SlurmdPidFile=$dir/run/slurmd.daemon.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1,sched_interval=1,sched_min_interval=0,batch_sched_delay=0,default_queue_depth=1000
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=100
MaxArraySize=100001
MaxJobCount=200000
MinJobAge=2
KillWait=2
ReturnToService=2
SlurmdTimeout=60
InactiveLimit=0
NodeName=$node NodeAddr=127.0.0.1 NodeHostname=$node $topology RealMemory=$mem_mb State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
}

# start_daemon NAME PROGRAM ARGS...: in its own session, so neither ctest nor a Ctrl-C in the
# shell that started it takes it down; pid recorded in DIR/run/NAME.pid. Returns once the program
# has replaced setsid, so that live_pid recognises it from then on: setsid's own command line
# names DIR too, and a check made while it execs the program finds no command line at all (a
# loaded machine once saw slurmctld "exit during start" so, and the cluster stopped it).
start_daemon() {
  local name=$1 pid deadline=$((SECONDS + 10))
  shift
  setsid "$@" </dev/null >>"$dir/log/$name.out" 2>&1 &
  pid=$!
  echo "$pid" >"$dir/run/$name.pid"
  until live_pid "$name" >/dev/null && [[ $(tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null | head -n 1) != setsid ]]; do
    kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)) || return 0
    sleep 0.05
  done
}

# Each daemon's log file, or its captured stderr when it died before opening one (munged, in the
# foreground, only writes to stderr).
print_log_tails() {
  local name f
  for name in "${daemons[@]}"; do
    f=$dir/log/$name.log
    [[ -f $f ]] || f=$dir/log/$name.out
    [[ -f $f ]] || continue
    echo "---- tail of $f" >&2
    tail -n 25 "$f" >&2
  done
}

# stop_daemons NAME...: SIGTERM, then SIGKILL for any still there after 20 s; waits for all.
stop_daemons() {
  local name pid pids=() deadline=$((SECONDS + 20))
  for name in "$@"; do
    if pid=$(live_pid "$name"); then
      kill -TERM "$pid" 2>/dev/null || true
      pids+=("$pid")
    fi
    rm -f "$dir/run/$name.pid"
  done
  for pid in ${pids[@]+"${pids[@]}"}; do
    while kill -0 "$pid" 2>/dev/null; do
      ((SECONDS < deadline)) || kill -KILL "$pid" 2>/dev/null || true
      sleep 0.2
    done
  done
}

stop_cluster() {
  local deadline
  if live_pid slurmctld >/dev/null && live_pid slurmd >/dev/null && live_pid munged >/dev/null; then
    # Running jobs would outlive slurmd: their slurmstepd is detached from it.
    SLURM_CONF=$conf timeout 10 scancel --full --quiet --partition=debug 2>/dev/null || true
    deadline=$((SECONDS + 10))
    while ((SECONDS < deadline)) &&
      [[ -n $(SLURM_CONF=$conf timeout 5 squeue -h -o %i 2>/dev/null || echo unknown) ]]; do
      sleep 0.5
    done
  fi
  stop_daemons slurmd slurmctld munged
}

# Returns 0 once sinfo shows the node idle, 1 on timeout, 2 if a daemon died meanwhile (3 when
# it died because its port was taken in the meantime: the caller then retries with new ports).
wait_idle() {
  local deadline=$((SECONDS + start_timeout)) state name
  while ((SECONDS < deadline)); do
    for name in "${daemons[@]}"; do
      if ! live_pid "$name" >/dev/null; then
        echo "cluster.sh: $name exited during start" >&2
        if grep -qs 'Address already in use' "$dir/log/slurmctld.log" "$dir/log/slurmd.log"; then
          return 3
        fi
        return 2
      fi
    done
    state=$(SLURM_CONF=$conf timeout 5 sinfo -h -N -o %T 2>/dev/null || true)
    [[ $state == idle ]] && return 0
    sleep 0.5
  done
  echo "cluster.sh: node not idle after ${start_timeout}s (sinfo: '${state:-}')" >&2
  return 1
}

start_cluster() {
  require_programs
  stop_cluster
  local node
  node=$(hostname -s)
  # sun_path holds 107 bytes; slurmstepd's sockets in the spool are the longest of ours.
  local longest_socket=$dir/spool/slurmd/${node}_4294967294.4294967294
  if ((${#longest_socket} > 107)); then
    echo "cluster.sh: DIR is too long for Unix socket paths under it: $dir" >&2
    exit 1
  fi
  rm -rf "$dir/munge" "$dir/state" "$dir/spool" "$dir/run" "$dir/log"
  mkdir -p "$dir/munge" "$dir/state" "$dir/spool/slurmd" "$dir/run" "$dir/log"
  chmod 0755 "$dir/munge"  # munged wants its socket directory searchable by all

  local attempt ports status
  dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
  chmod 0600 "$dir/munge/munge.key"
  start_daemon munged munged --foreground --force --key-file="$dir/munge/munge.key" \
    --socket="$munge_socket" --pid-file="$dir/munge/munged.pid" \
    --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munged.seed"
  local deadline=$((SECONDS + 10))
  until munge -n --socket="$munge_socket" 2>/dev/null | unmunge --socket="$munge_socket" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)) || ! live_pid munged >/dev/null; then
      echo "cluster.sh: munged did not come up" >&2
      print_log_tails
      stop_cluster
      exit 1
    fi
    sleep 0.2
  done

  for attempt in 1 2 3; do
    read -r -a ports <<<"$(free_ports)"
    write_conf "${ports[0]}" "${ports[1]}" "$node"
    start_daemon slurmctld slurmctld -D -f "$conf"
    start_daemon slurmd slurmd -D -f "$conf" -N "$node"
    status=0
    wait_idle || status=$?
    if ((status == 0)); then
      echo "cluster.sh: node $node idle; SlurmctldPort=${ports[0]} SlurmdPort=${ports[1]}; SLURM_CONF=$conf"
      return 0
    fi
    if ((status != 3 || attempt == 3)); then
      break
    fi
    echo "cluster.sh: a port was taken meanwhile; retrying with new ports" >&2
    stop_daemons slurmd slurmctld
    rm -rf "$dir/state" "$dir/spool" "$dir/log/slurmctld.log" "$dir/log/slurmd.log"
    mkdir -p "$dir/state" "$dir/spool/slurmd"
  done
  print_log_tails
  stop_cluster
  exit 1
}

case $action in
  start) start_cluster ;;
  stop) stop_cluster ;;
  env) echo "export SLURM_CONF=$conf" ;;
  *) usage ;;
esac
