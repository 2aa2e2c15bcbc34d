/**
 * The seccomp filter (seccomp.ts) held by the kernel: a Python program in a real sandbox, launched as the service
 * launches a session's program (sandboxLaunch, as root, under a session's own user), tries the refused ioctls on a
 * terminal of its own and the refused personalities, and the same program under a filter that refuses nothing
 * shows that each refusal is the filter's. Needs what the service needs for its sandboxes: root, bwrap, setpriv.
 */
import { execFileSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { findSandboxKit, runSandboxed } from './availability.ts';
import { SECCOMP_PYTHON } from './seccomp.ts';

/**
 * Prints, as JSON, what each attempt gave: 'ok', the errno's name, or 'killed by SIGSYS'. The terminal is made its
 * controlling one: without that the kernel refuses TIOCSTI itself, with the same EPERM, and the test would prove
 * nothing.
 */
const PROBE = String.raw`
import ctypes, errno, fcntl, json, mmap, os, signal, termios

libc = ctypes.CDLL(None, use_errno=True)


def outcome(result):
    return errno.errorcode[ctypes.get_errno()] if result == -1 else 'ok'


def attempt(call):
    try:
        call()
        return 'ok'
    except OSError as error:
        return errno.errorcode[error.errno]


def in_child(call):
    # A call of a foreign ABI kills the process that makes it: a child makes it.
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.write(writer, call().encode())
        os._exit(0)
    os.close(writer)
    status = os.waitpid(pid, 0)[1]
    said = os.read(reader, 64).decode()
    return 'killed by ' + signal.Signals(os.WTERMSIG(status)).name if os.WIFSIGNALED(status) else said


master, tty = os.openpty()
try:
    os.setsid()
except OSError:
    pass  # bwrap's --new-session made it a session's leader already
fcntl.ioctl(tty, termios.TIOCSCTTY, 0)
results = {
    'TIOCSTI': attempt(lambda: fcntl.ioctl(tty, termios.TIOCSTI, b'x')),
    'TIOCLINUX': attempt(lambda: fcntl.ioctl(tty, termios.TIOCLINUX, bytes(8))),
    'TIOCGWINSZ': attempt(lambda: fcntl.ioctl(tty, termios.TIOCGWINSZ, bytes(8))),
}
for name, value in [('query', 0xffffffff), ('PER_LINUX', 0), ('PER_LINUX32', 0x0008),
                    ('ADDR_NO_RANDOMIZE', 0x0040000), ('READ_IMPLIES_EXEC', 0x0400000)]:
    results['personality ' + name] = outcome(libc.personality(ctypes.c_ulong(value)))
    libc.personality(ctypes.c_ulong(0))
if os.uname().machine == 'x86_64':
    buf = ctypes.create_string_buffer(8)
    # The same requests with high bits set, which the kernel does not read.
    results['TIOCSTI high'] = outcome(libc.syscall(16, tty, ctypes.c_ulong(termios.TIOCSTI | 1 << 32), buf))
    results['personality ADDR_NO_RANDOMIZE high'] = outcome(libc.syscall(135, ctypes.c_ulong(0x0040000 | 1 << 32)))
    libc.personality(ctypes.c_ulong(0))
    # The x32 ABI: its numbers have bit 30 set (ioctl is 514, personality 135).
    results['x32 TIOCSTI'] = in_child(lambda: outcome(libc.syscall(0x40000000 | 514, tty, termios.TIOCSTI, buf)))
    results['x32 personality'] = in_child(lambda: outcome(libc.syscall(0x40000000 | 135, 0x0040000)))
    # i386's int 0x80: push rbx; mov eax, 136 (its personality); mov ebx, edi; int 0x80; pop rbx; ret.
    code = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    code.write(bytes.fromhex('53b88800000089fbcd805bc3'))
    i386 = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_uint)(ctypes.addressof(ctypes.c_char.from_buffer(code)))
    raw = lambda result: 'ok' if result >= 0 else errno.errorcode[-result]
    results['i386 personality'] = in_child(lambda: raw(i386(0x0040000)))
print(json.dumps(results))
`;

/** Runs PROBE in a sandbox under `seccomp`; what it printed. */
async function probe(seccomp: Buffer): Promise<Record<string, string>> {
  const { code, signal, stdout, stderr } = await runSandboxed([SECCOMP_PYTHON, '-c', PROBE], seccomp);
  if (code !== 0) throw new Error(`the probe ended with ${code ?? signal}; its error output:\n${stderr}`);
  return JSON.parse(stdout) as Record<string, string>;
}

/** What the probe did under the filter, and under one that refuses nothing (libseccomp's default action alone). */
let filtered: Record<string, string>;
let unfiltered: Record<string, string>;

beforeAll(async () => {
  const kit = await findSandboxKit();
  if (typeof kit === 'string') throw new Error(`This test runs programs in a sandbox, and ${kit}.`);
  const none = execFileSync(SECCOMP_PYTHON, [
    '-c',
    'import sys, seccomp; seccomp.SyscallFilter(seccomp.ALLOW).export_bpf(sys.stdout.buffer)',
  ]);
  [filtered, unfiltered] = await Promise.all([probe(kit.seccomp), probe(none)]);
});

describe('a program under the seccomp filter', () => {
  it('cannot push input into its terminal with TIOCSTI or TIOCLINUX, and uses it otherwise', () => {
    // Without the filter the kernel lets it (or, where dev.tty.legacy_tiocsti is 0, says EIO); TIOCLINUX on a
    // pseudo-terminal is no console's.
    expect(unfiltered.TIOCSTI).toMatch(/^(ok|EIO)$/);
    expect(unfiltered.TIOCLINUX).not.toBe('EPERM');
    expect(filtered).toMatchObject({ TIOCSTI: 'EPERM', TIOCLINUX: 'EPERM', TIOCGWINSZ: 'ok' });
  });

  it('may ask its personality and set PER_LINUX, and cannot turn randomization off or memory executable', () => {
    expect(unfiltered['personality ADDR_NO_RANDOMIZE']).toBe('ok');
    expect(unfiltered['personality READ_IMPLIES_EXEC']).toBe('ok');
    expect(filtered).toMatchObject({
      'personality query': 'ok',
      'personality PER_LINUX': 'ok',
      'personality PER_LINUX32': 'ok',
      'personality ADDR_NO_RANDOMIZE': 'EPERM',
      'personality READ_IMPLIES_EXEC': 'EPERM',
    });
  });

  it.runIf(process.arch === 'x64')('cannot pass by with high bits, the x32 ABI or i386’s int 0x80', () => {
    expect(unfiltered['TIOCSTI high']).toMatch(/^(ok|EIO)$/);
    expect(unfiltered['personality ADDR_NO_RANDOMIZE high']).toBe('ok');
    expect(filtered).toMatchObject({
      'TIOCSTI high': 'EPERM',
      'personality ADDR_NO_RANDOMIZE high': 'EPERM',
      'x32 TIOCSTI': 'killed by SIGSYS',
      'x32 personality': 'killed by SIGSYS',
      'i386 personality': 'killed by SIGSYS',
    });
  });
});
