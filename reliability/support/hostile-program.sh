#!/bin/sh
# A hostile program for reliability/sandbox.test.ts: run as a session's program, it tries each escape of
# issue 22 and says on its error output (the session's log) what happened, one line each:
#   escape <name>: refused <how>      or      escape <name>: ALLOWED <what it got>
# then "hostile: done". It is given, in its environment, what an attacker would have learnt on the host:
# KEY (the service's ticket key), STATE (sessions.json), REPO (the repository), DATA (the data directory),
# SERVICE_PORT and MARK (a word to name its files by); the service's pid is in ./target-pid.
say() { echo "escape $1: $2" >&2; }
try() { # try NAME COMMAND...: ALLOWED when COMMAND succeeds, refused with its error otherwise
  name=$1
  shift
  if out=$("$@" 2>&1); then say "$name" "ALLOWED $(echo "$out" | head -c 80)"; else say "$name" "refused ($(echo "$out" | tail -n 1 | head -c 80))"; fi
}

try read-key cat "$KEY"
try read-state cat "$STATE"
try list-repository ls "$REPO"
SERVICE_PID=$(cat ./target-pid)
try write-repository touch "$REPO/pwned-$MARK"
try write-data touch "$DATA/pwned-$MARK"
try write-dist-apps sh -c "echo pwned > '$REPO/dist-apps/display.mjs'"
# Its own /tmp takes the file; the host's /tmp must not have it (the test looks).
try write-host-tmp touch "/tmp/pwned-$MARK"
try see-service kill -0 "$SERVICE_PID"
try stop-service kill -STOP "$SERVICE_PID"
echo "processes: $(ls /proc | grep -c '^[0-9][0-9]*$')" >&2
echo "uid: $(id -u) $(id -un)" >&2
try reach-service bash -c "exec 3<>/dev/tcp/127.0.0.1/$SERVICE_PORT"
try new-user-namespace unshare --user true
try mount mount -t tmpfs none /tmp
try ptrace /usr/bin/python3 -c '
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
sys.exit(0 if libc.ptrace(0, 0, 0, 0) == 0 else "errno %d" % ctypes.get_errno())'
for call in keyctl bpf perf_event_open userfaultfd io_uring_setup; do
  try "$call" /usr/bin/python3 -c "
import ctypes, errno, sys, seccomp
libc = ctypes.CDLL(None, use_errno=True)
r = libc.syscall(seccomp.resolve_syscall(seccomp.Arch.NATIVE, '$call'), 0, 0, 0, 0, 0)
e = ctypes.get_errno()
sys.exit('errno %d' % e if r < 0 and e == errno.EPERM else 0)"
done
echo "seccomp: $(grep '^Seccomp:' /proc/self/status | tr -d '\t')" >&2
echo "capabilities: $(grep '^CapEff:' /proc/self/status | tr -d '\t')" >&2
# /dev/shm holds at most its size, whatever is written.
dd if=/dev/zero of=/dev/shm/fill bs=1M count=512 2>/dev/null
echo "shm-filled-mb: $(($(stat -c %s /dev/shm/fill) / 1048576))" >&2
rm -f /dev/shm/fill
# Processes that outlive the session if nothing stops them: a setsid child and a double fork.
setsid sleep 3599 &
(sleep 3598 &) &
# A fork bomb: how many processes can it start? A shell that cannot fork gives up, so the bomb runs in a
# subshell that counts as it goes (echo and > start no process), and the program waits for the sleeps to end.
(
  n=0
  while [ $n -lt 300 ]; do
    sleep 5 &
    n=$((n + 1))
    echo $n >/tmp/forks
  done
) 2>/dev/null
until sleep 6 2>/dev/null; do :; done
echo "forks: $(cat /tmp/forks)" >&2
echo "hostile: done" >&2
