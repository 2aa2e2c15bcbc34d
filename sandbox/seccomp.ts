/**
 * The seccomp filter of every sandbox (CONTRACT section 17): the system calls that container runtimes and
 * Flatpak refuse to untrusted programs fail with EPERM; everything else is allowed.
 *
 * The filter is compiled by libseccomp (Debian's python3-seccomp, its own binding), which knows each
 * architecture's system call numbers and the checks a hand-written BPF program gets wrong (the x32 ABI on
 * x86-64, a foreign architecture's numbers): the compiled program is what bwrap's `--seccomp FD` loads.
 * The service compiles it once at start.
 */
import { execFile } from 'node:child_process';

/**
 * Refused: debugging other processes, mounting and namespaces, kernel keys, BPF, performance counters,
 * userfaultfd (a favourite of kernel exploits), io_uring (a large attack surface that Docker and ChromeOS
 * refuse too), modules, reboot and swap, and the rest of Docker's default denials that a desktop program
 * never needs.
 */
export const REFUSED_SYSCALLS: readonly string[] = [
  'ptrace',
  'process_vm_readv',
  'process_vm_writev',
  'kcmp',
  'mount',
  'umount2',
  'pivot_root',
  'move_mount',
  'open_tree',
  'fsopen',
  'fsconfig',
  'fsmount',
  'fspick',
  'mount_setattr',
  'unshare',
  'setns',
  'keyctl',
  'add_key',
  'request_key',
  'bpf',
  'perf_event_open',
  'userfaultfd',
  'io_uring_setup',
  'io_uring_enter',
  'io_uring_register',
  'init_module',
  'finit_module',
  'delete_module',
  'kexec_load',
  'kexec_file_load',
  'reboot',
  'swapon',
  'swapoff',
  'acct',
  'quotactl',
  'open_by_handle_at',
  'name_to_handle_at',
  'lookup_dcookie',
  'syslog',
  'uselib',
  'iopl',
  'ioperm',
  'settimeofday',
  'clock_settime',
  'clock_adjtime',
  'adjtimex',
  'sethostname',
  'setdomainname',
];

/** The interpreter that has Debian's python3-seccomp (not a python3 of pyenv or a virtualenv on the PATH). */
export const SECCOMP_PYTHON = '/usr/bin/python3';

const COMPILE = `
import errno, sys, seccomp
f = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
for name in sys.argv[1:]:
    try:
        f.add_rule(seccomp.ERRNO(errno.EPERM), name)
    except (RuntimeError, ValueError):
        pass  # not a system call of this architecture
f.export_bpf(sys.stdout.buffer)
`;

/** The compiled filter (a BPF program for this architecture); rejects with a sentence when it cannot be made. */
export function compileSeccompFilter(python = SECCOMP_PYTHON): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    execFile(
      python,
      ['-c', COMPILE, ...REFUSED_SYSCALLS],
      { encoding: 'buffer', timeout: 10_000 },
      (error, stdout, stderr) => {
        if (error) {
          const why = stderr.toString().includes('No module named')
            ? "libseccomp's Python binding (python3-seccomp) is not installed"
            : `libseccomp could not compile it (${error.message.split('\n')[0]})`;
          return reject(new Error(why));
        }
        // Each BPF instruction is 8 bytes; an empty program would allow everything.
        if (stdout.length < 8 || stdout.length % 8 !== 0)
          return reject(new Error('libseccomp returned no filter'));
        resolve(stdout);
      },
    );
  });
}
