#!/usr/bin/env bash
# A two-node Slurm test cluster on this one machine, for the Slurm runner's tests and for a person:
#   scripts/slurm-cluster.sh start    starts it; prints its env lines (SLURM_CONF=...) on stdout, writes them to <dir>/env
#   scripts/slurm-cluster.sh status   says whether one runs, and shows sinfo and squeue (exit 3 when none runs)
#   scripts/slurm-cluster.sh stop     cancels every job and removes everything it made (also after a failed start)
# Its own munged (own key and socket), slurmctld on the host at 10.77.0.1 (bridge sgbr0), and one slurmd per node in a
# network namespace of its own (sg-node1 at 10.77.0.11, sg-node2 at 10.77.0.12), each with one fake GPU (a gres.conf
# File= on a character device made here). Everything lives in a temporary folder, or in STREAMGATE_TEST_CLUSTER_DIR
# (absent or empty); nothing in /etc/slurm or /etc/munge is read or touched. Needs root (CAP_NET_ADMIN).
# STREAMGATE_TEST_CLUSTER_TIMEOUT: seconds to wait for both nodes to be idle and the scheduler running (60);
# STREAMGATE_TEST_SLURM_EXTRA: lines appended to slurm.conf (e.g. "SlurmdTimeout=10").
set -euo pipefail
shopt -s nullglob

readonly BRIDGE=sgbr0 NET=10.77.0 PORT=6817 NODES=(node1 node2)
readonly MARKER=.streamgate-test-cluster
ns_of() { echo "sg-$1"; }              # the node's network namespace
veth_of() { echo "sgv-$1"; }           # the host end of its veth pair
addr_of() { echo "$NET.1${1#node}"; } # node1 -> 10.77.0.11
say() { echo "slurm-cluster: $*" >&2; }
die() {
  say "error: $*"
  exit 1
}

# The folder of the running cluster, which its bridge names (alias); for stop and status, STREAMGATE_TEST_CLUSTER_DIR
# when set.
bridge_dir() { ip -o link show "$BRIDGE" 2>/dev/null | sed -n 's/.* alias //p' || true; }
cluster_dir() { if [ -n "${STREAMGATE_TEST_CLUSTER_DIR:-}" ]; then echo "$STREAMGATE_TEST_CLUSTER_DIR"; else bridge_dir; fi; }

# The live ones (no zombie) of the pids given one a line.
alive() {
  local p
  while read -r p; do
    [ -n "$p" ] && [ -r "/proc/$p/status" ] && ! grep -q '^State:.*Z' "/proc/$p/status" 2>/dev/null && echo "$p"
  done
  return 0
}

# Every live process whose command line names the folder (our munged, slurmctld and slurmd), their children
# (slurmctld's slurmscriptd names no folder), and every process in a node's namespace (slurmd, slurmstepd, the jobs).
our_pids() {
  local dir=$1 node found
  found=$(
    [ -z "$dir" ] || pgrep -f -- "${dir//./\\.}/" || true
    for node in "${NODES[@]}"; do ip netns pids "$(ns_of "$node")" 2>/dev/null || true; done
  )
  [ -z "$found" ] || {
    echo "$found"
    pgrep -P "$(paste -sd, <<<"$found")" || true
  } | sort -un | alive
}

stop_processes() {
  local dir=$1 pids
  pids=$(our_pids "$dir")
  [ -n "$pids" ] || return 0
  # shellcheck disable=SC2086 # one pid a word
  kill -TERM $pids 2>/dev/null || true
  for _ in $(seq 50); do
    pids=$(alive <<<"$pids")
    [ -n "$pids" ] || return 0
    sleep 0.1
  done
  say "killing what did not stop in 5 s: $(paste -sd' ' <<<"$pids")"
  # shellcheck disable=SC2086
  kill -KILL $pids 2>/dev/null || true
  sleep 0.2
}

do_stop() {
  local dir=$1 node left=""
  if [ -n "$dir" ] && [ -f "$dir/slurm.conf" ] && [ -f "$dir/run/slurmctld.pid" ] &&
    kill -0 "$(cat "$dir/run/slurmctld.pid")" 2>/dev/null; then
    local jobs
    jobs=$(SLURM_CONF=$dir/slurm.conf timeout 10 squeue -h -o %i 2>/dev/null || true)
    # shellcheck disable=SC2086
    [ -z "$jobs" ] || SLURM_CONF=$dir/slurm.conf timeout 10 scancel $jobs 2>/dev/null || true
  fi
  stop_processes "$dir"
  for node in "${NODES[@]}"; do
    ip netns del "$(ns_of "$node")" 2>/dev/null || true
    ip link del "$(veth_of "$node")" 2>/dev/null || true
  done
  ip link del "$BRIDGE" 2>/dev/null || true
  if [ -n "$dir" ] && [ -f "$dir/$MARKER" ]; then rm -rf -- "$dir"; fi
  # Nothing may be left.
  for node in "${NODES[@]}"; do
    [ ! -e "/var/run/netns/$(ns_of "$node")" ] || left+=" namespace $(ns_of "$node");"
    ! ip link show "$(veth_of "$node")" >/dev/null 2>&1 || left+=" link $(veth_of "$node");"
  done
  ! ip link show "$BRIDGE" >/dev/null 2>&1 || left+=" bridge $BRIDGE;"
  [ -z "$(our_pids "$dir")" ] || left+=" processes $(our_pids "$dir" | tr '\n' ' ');"
  [ -z "$dir" ] || [ ! -e "$dir/$MARKER" ] || left+=" folder $dir;"
  [ -z "$left" ] || die "could not remove:$left"
}

write_config() {
  local dir=$1 host=$2 cpus node
  cpus=$(nproc)
  cat >"$dir/slurm.conf" <<EOF
# Written by scripts/slurm-cluster.sh for a test cluster; removed by its stop.
ClusterName=streamgate-test
SlurmctldHost=$host($NET.1)
SlurmctldPort=$PORT
SlurmdPort=6818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd-%n.pid
SlurmctldDebug=info
SlurmdDebug=info
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0
ReturnToService=2
SlurmdParameters=config_overrides
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
KillWait=5
SlurmdTimeout=10
GresTypes=gpu
EOF
  for node in "${NODES[@]}"; do
    echo "NodeName=$node NodeHostname=$host NodeAddr=$(addr_of "$node") CPUs=$cpus RealMemory=512 Gres=gpu:1 State=UNKNOWN"
  done >>"$dir/slurm.conf"
  echo "PartitionName=gpu Nodes=$(
    IFS=,
    echo "${NODES[*]}"
  ) Default=YES MaxTime=INFINITE State=UP" >>"$dir/slurm.conf"
  [ -z "${STREAMGATE_TEST_SLURM_EXTRA:-}" ] || printf '%s\n' "$STREAMGATE_TEST_SLURM_EXTRA" >>"$dir/slurm.conf"
  : >"$dir/gres.conf"
  for node in "${NODES[@]}"; do
    mkdir -p "$dir/dev/$node"
    mknod -m 666 "$dir/dev/$node/gpu0" c 1 3 # /dev/null's numbers: a harmless stand-in for a GPU
    echo "NodeName=$node Name=gpu File=$dir/dev/$node/gpu0" >>"$dir/gres.conf"
  done
}

add_network() {
  local node ns veth
  ip link set "$BRIDGE" alias "$1"
  ip addr add "$NET.1/24" dev "$BRIDGE"
  ip link set "$BRIDGE" up
  for node in "${NODES[@]}"; do
    ns=$(ns_of "$node") veth=$(veth_of "$node")
    ip netns add "$ns"
    ip link add "$veth" type veth peer name eth0 netns "$ns"
    ip link set "$veth" master "$BRIDGE" up
    ip -n "$ns" addr add "$(addr_of "$node")/24" dev eth0
    ip -n "$ns" link set lo up
    ip -n "$ns" link set eth0 up
    ip -n "$ns" route add default via "$NET.1" # the host's own addresses answer through the bridge too
  done
}

# Main scheduling cycles so far (sdiag); slurmctld runs its first about 3 s after it starts, and no job starts before.
sched_cycles() { sdiag 2>/dev/null | awk '/^Main schedule/ { main = 1 } main && /Total cycles:/ { print $3; exit }'; }

# Both nodes idle and the scheduler running, or the timeout: sinfo prints "node1 idle" lines.
wait_idle() {
  local dir=$1 timeout=$2 deadline states
  deadline=$((SECONDS + timeout))
  while :; do
    states=$(SLURM_CONF=$dir/slurm.conf sinfo -h -N -o '%N %t' 2>/dev/null | sort -u || true)
    if [ "$(grep -c ' idle$' <<<"$states")" -ge "${#NODES[@]}" ]; then
      [ "$(SLURM_CONF=$dir/slurm.conf sched_cycles)" -gt 0 ] 2>/dev/null && return 0
      states+=" (scheduler not yet running)"
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      say "the nodes are not idle after ${timeout} s: ${states:-slurmctld does not answer}"
      for f in "$dir"/log/*.log; do
        say "--- last lines of $f"
        tail -n 15 "$f" >&2
      done
      return 1
    fi
    sleep 0.2
  done
}

do_start() {
  local dir timeout=${STREAMGATE_TEST_CLUSTER_TIMEOUT:-60} host node cmd started=$SECONDS
  [ "$(id -u)" = 0 ] || die "needs root (network namespaces, a bridge and mknod); run it as root"
  for cmd in slurmctld slurmd sinfo squeue scancel sdiag munged mungekey ip nsenter mknod; do
    command -v "$cmd" >/dev/null || die "$cmd is missing; run: npm run setup"
  done
  [[ $timeout =~ ^[1-9][0-9]*$ ]] || die "STREAMGATE_TEST_CLUSTER_TIMEOUT must be a whole number of seconds, not '$timeout'"
  if ip link show "$BRIDGE" >/dev/null 2>&1 || [ -e "/var/run/netns/$(ns_of node1)" ]; then
    die "a test cluster is already running (folder: $(bridge_dir)); stop it first: scripts/slurm-cluster.sh stop"
  fi
  ! ip -4 -o addr show | grep -qF " $NET." || die "the host already has an address in $NET.0/24: $(ip -4 -o addr show | grep -F " $NET.")"
  ! ss -Hltn "sport = :$PORT" | grep -q . || die "port $PORT (slurmctld) is taken: is a system slurmctld running?"
  if [ -n "${STREAMGATE_TEST_CLUSTER_DIR:-}" ]; then
    dir=$STREAMGATE_TEST_CLUSTER_DIR
    [[ $dir == /* && $dir =~ ^[A-Za-z0-9/._-]+$ ]] || die "STREAMGATE_TEST_CLUSTER_DIR must be an absolute path of letters, digits, / . _ -: '$dir'"
    [ ! -e "$dir" ] || [ -z "$(ls -A "$dir")" ] || die "STREAMGATE_TEST_CLUSTER_DIR $dir is not empty"
    mkdir -p "$dir"
  else
    dir=$(mktemp -d -t streamgate-slurm.XXXXXX)
    # The env file holds the paths unquoted, and slurm.conf cannot quote them.
    [[ $dir =~ ^[A-Za-z0-9/._-]+$ ]] || { rmdir "$dir"; die "the temporary folder $dir has characters slurm.conf cannot hold; set TMPDIR"; }
  fi
  [ "${#dir}" -le 80 ] || die "the folder's path is too long for munge's socket (80 characters at most): $dir"
  # The bridge is the claim: once it exists, this start owns the cluster, and a failure from here stops it all.
  if ! ip link add "$BRIDGE" type bridge 2>/dev/null; then
    ip link show "$BRIDGE" >/dev/null 2>&1 && die "a test cluster is already running; stop it first: scripts/slurm-cluster.sh stop"
    rmdir "$dir" 2>/dev/null || true
    die "cannot make a bridge (no CAP_NET_ADMIN here?): $(ip link add "$BRIDGE" type bridge 2>&1)"
  fi
  touch "$dir/$MARKER"
  claimed=$dir # global: the trap runs after do_start's locals are gone
  trap 'say "start failed; cleaning up"; trap - EXIT; do_stop "$claimed" || true; exit 1' EXIT
  trap 'exit 1' INT TERM
  add_network "$dir"
  chmod 755 "$dir" # munged wants every folder above its socket searchable by all
  mkdir -p "$dir/munge" "$dir/state" "$dir/log" "$dir/run" "$dir/spool"
  mungekey -c -k "$dir/munge/munge.key"
  munged -S "$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" --pid-file="$dir/munge/munged.pid" \
    --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munged.seed"
  host=$(hostname -s)
  write_config "$dir" "$host"
  export SLURM_CONF=$dir/slurm.conf
  slurmctld -f "$SLURM_CONF"
  for node in "${NODES[@]}"; do
    nsenter --net="/var/run/netns/$(ns_of "$node")" slurmd -N "$node" -f "$SLURM_CONF"
  done
  wait_idle "$dir" "$timeout"
  {
    echo "SLURM_CONF=$SLURM_CONF"
    echo "STREAMGATE_TEST_CLUSTER_DIR=$dir"
    echo "STREAMGATE_TEST_MUNGE_SOCKET=$dir/munge/munge.socket"
    echo "STREAMGATE_TEST_CLUSTER_NODES=$(for node in "${NODES[@]}"; do printf '%s=%s,' "$node" "$(addr_of "$node")"; done | sed 's/,$//')"
  } >"$dir/env"
  trap - EXIT INT TERM
  say "up in $((SECONDS - started)) s: nodes ${NODES[*]} idle in partition gpu, scheduler running; set -a; . $dir/env; set +a"
  cat "$dir/env"
}

do_status() {
  local dir
  dir=$(cluster_dir)
  if ! ip link show "$BRIDGE" >/dev/null 2>&1; then
    say "no test cluster is running"
    exit 3
  fi
  echo "folder: $dir"
  [ -f "$dir/env" ] && cat "$dir/env"
  SLURM_CONF=$dir/slurm.conf timeout 10 sinfo -N -o '%N %P %t %G %c' || say "slurmctld does not answer"
  SLURM_CONF=$dir/slurm.conf timeout 10 squeue || true
}

case "${1:-}" in
  start) do_start ;;
  stop)
    dir=$(cluster_dir)
    if ! ip link show "$BRIDGE" >/dev/null 2>&1 && [ -z "$(our_pids "$dir")" ] && [ ! -e "/var/run/netns/$(ns_of node1)" ] &&
      [ ! -e "/var/run/netns/$(ns_of node2)" ] && { [ -z "$dir" ] || [ ! -e "$dir/$MARKER" ]; }; then
      say "no test cluster is running; nothing to stop"
      exit 0
    fi
    do_stop "$dir"
    say "stopped; nothing left"
    ;;
  status) do_status ;;
  *) die "usage: scripts/slurm-cluster.sh start|stop|status" ;;
esac
