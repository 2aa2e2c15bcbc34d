/**
 * The seccomp filter of every sandbox (CONTRACT section 17): the system calls that container runtimes and
 * Flatpak refuse to untrusted programs fail with EPERM, and so do the ioctl requests and personality() changes
 * they refuse; everything else is allowed.
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

/**
 * Refused ioctl requests, by their names in Python's termios (the numbers of the machine's architecture). The
 * kernel reads the request as 32 bits, so the filter compares the low 32 bits of argument 1 (a masked equality,
 * as Docker and Flatpak do): a request with high bits set, the same request to the kernel, is refused too.
 *
 * - TIOCSTI pushes a character into a terminal's input: a program that shares a terminal with a shell types
 *   commands into it, the classic escape from a sandbox (CVE-2017-5226 in Flatpak).
 * - TIOCLINUX: on a Linux virtual console, its paste does the same (CVE-2023-28100 in Flatpak).
 */
export const REFUSED_IOCTLS: readonly string[] = ['TIOCSTI', 'TIOCLINUX'];

/**
 * personality() may only ask (0xffffffff, which changes nothing) or set PER_LINUX (0) with these flags, alone or
 * together, as Docker allows: PER_LINUX32 (8, what `linux32` sets: uname says i686) and UNAME26 (0x20000: uname
 * says 2.6). Every other value is refused, ADDR_NO_RANDOMIZE (no address-space randomization, so an exploit of a
 * program it then runs knows its addresses), READ_IMPLIES_EXEC (readable memory executable) and the foreign
 * personalities among them.
 */
export const PERSONALITY_QUERY = 0xffffffff;
export const PERSONALITY_FLAGS_ALLOWED = 0x0008 | 0x0020000;

/** A rule of the filter on one argument: the call fails with EPERM when `(argument & mask) === value`. */
export interface MaskedRule {
  mask: number;
  value: number;
}

/**
 * The refused personalities as rules on the low 32 bits of argument 0 (the kernel reads 32 bits). The filter
 * allows by default and libseccomp refuses two comparisons of one argument in a rule, so each rule is one masked
 * equality and together they must match every value but the allowed ones. Each says "bit b is set and bit c is
 * clear", with b outside the allowed flags: that matches neither the query (every bit set) nor PER_LINUX with
 * allowed flags (no other bit set). The bits outside the flags form a ring, each one's c the next one, and the
 * first also has a rule for each flag's bit as c. A value not allowed has some bit b outside the flags set and
 * some bit clear: if a bit of the ring is clear, going round the ring from b finds a set bit followed by a clear
 * one; if not, a flag's bit is clear, and the first bit of the ring, set, has a rule for it. 32 rules; none can be
 * left out (a value with only bit c clear matches only a rule of c).
 */
export function personalityRules(flags = PERSONALITY_FLAGS_ALLOWED): MaskedRule[] {
  const bit = (n: number) => 2 ** n;
  const all = [...Array(32).keys()];
  const ring = all.filter((n) => (flags & bit(n)) === 0);
  const pairs: [number, number][] = ring.map((b, i) => [b, ring[(i + 1) % ring.length]!]);
  for (const c of all.filter((n) => (flags & bit(n)) !== 0)) pairs.push([ring[0]!, c]);
  return pairs.map(([b, c]) => ({ mask: bit(b) + bit(c), value: bit(b) }));
}

/** The interpreter that has Debian's python3-seccomp (not a python3 of pyenv or a virtualenv on the PATH). */
export const SECCOMP_PYTHON = '/usr/bin/python3';

/**
 * Only the machine's own architecture is in the filter: a system call of another ABI (on x86-64, the x32 ABI's
 * numbers or i386's `int 0x80`) takes libseccomp's action for a foreign architecture, which kills the program,
 * so no rule here can be passed by through one.
 */
const COMPILE = `
import errno, json, sys, termios, seccomp
spec = json.loads(sys.argv[1])
refuse = seccomp.ERRNO(errno.EPERM)
f = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
for name in spec['syscalls']:
    try:
        f.add_rule(refuse, name)
    except (RuntimeError, ValueError):
        pass  # not a system call of this architecture
for name in spec['ioctls']:
    f.add_rule(refuse, 'ioctl', seccomp.Arg(1, seccomp.MASKED_EQ, 0xffffffff, getattr(termios, name)))
for rule in spec['personality']:
    f.add_rule(refuse, 'personality', seccomp.Arg(0, seccomp.MASKED_EQ, rule['mask'], rule['value']))
f.export_bpf(sys.stdout.buffer)
`;

/** The compiled filter (a BPF program for this architecture); rejects with a sentence when it cannot be made. */
export function compileSeccompFilter(python = SECCOMP_PYTHON): Promise<Buffer> {
  const spec = { syscalls: REFUSED_SYSCALLS, ioctls: REFUSED_IOCTLS, personality: personalityRules() };
  return new Promise((resolve, reject) => {
    execFile(
      python,
      ['-c', COMPILE, JSON.stringify(spec)],
      { encoding: 'buffer', timeout: 10_000 },
      (error, stdout, stderr) => {
        if (error) {
          const said = stderr.toString().trim();
          const why = said.includes('No module named')
            ? "libseccomp's Python binding (python3-seccomp) is not installed"
            : `libseccomp could not compile it (${said.split('\n').pop() || error.message.split('\n')[0]})`;
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
