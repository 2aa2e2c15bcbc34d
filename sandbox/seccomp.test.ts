/**
 * The seccomp filter as libseccomp compiles it (seccomp.ts), run here on system calls the way the kernel runs it:
 * what it refuses, what it allows, and how it says why it cannot be made. That bwrap loads it and the kernel holds
 * to it is tested in seccomp.process.test.ts and reliability/sandbox.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  compileSeccompFilter,
  PERSONALITY_FLAGS_ALLOWED,
  PERSONALITY_QUERY,
  personalityRules,
  REFUSED_SYSCALLS,
  SECCOMP_PYTHON,
  type MaskedRule,
} from './seccomp.ts';

/** The filter's answers (SECCOMP_RET_*): EPERM is ERRNO with 1; KILL_THREAD (libseccomp's KILL) is 0. */
const ALLOW = 0x7fff0000;
const EPERM = 0x00050001;
const KILL = [0, 0x80000000];

const AUDIT_ARCH_I386 = 0x40000003;
const X32_SYSCALL_BIT = 0x40000000;
const ALLOWED_PERSONALITIES = [0, 0x0008, 0x20000, 0x20008, PERSONALITY_QUERY];
/** Flags a program must not set: ADDR_NO_RANDOMIZE, READ_IMPLIES_EXEC, ADDR_COMPAT_LAYOUT, MMAP_PAGE_ZERO. */
const REFUSED_PERSONALITIES = [
  0x0040000,
  0x0400000,
  0x0200000,
  0x0100000,
  0x0008 | 0x0040000,
  0x0001,
  0x0006,
];

/** One system call as the kernel hands it to the filter (struct seccomp_data). */
interface Call {
  nr: number;
  arch: number;
  args?: (number | bigint)[];
}

/**
 * Runs a classic BPF program of libseccomp's on `call` and returns its answer, as the kernel's seccomp does: the
 * instructions libseccomp emits and nothing else (an unknown one fails the test). Little-endian, as x86-64 is.
 */
function runFilter(program: Buffer, call: Call): number {
  const data = Buffer.alloc(64);
  data.writeInt32LE(call.nr, 0);
  data.writeUInt32LE(call.arch, 4);
  (call.args ?? []).forEach((arg, i) => data.writeBigUInt64LE(BigInt.asUintN(64, BigInt(arg)), 16 + 8 * i));
  let a = 0;
  for (let pc = 0; pc * 8 < program.length;) {
    const at = pc * 8;
    const [code, jt, jf, k] = [
      program.readUInt16LE(at),
      program.readUInt8(at + 2),
      program.readUInt8(at + 3),
      program.readUInt32LE(at + 4),
    ];
    pc += 1;
    if (code === 0x20)
      a = data.readUInt32LE(k); // BPF_LD | BPF_W | BPF_ABS
    else if (code === 0x54)
      a = (a & k) >>> 0; // BPF_ALU | BPF_AND | BPF_K
    else if (code === 0x05)
      pc += k; // BPF_JMP | BPF_JA
    else if (code === 0x15)
      pc += a === k ? jt : jf; // BPF_JMP | BPF_JEQ | BPF_K
    else if (code === 0x25)
      pc += a > k ? jt : jf; // BPF_JGT
    else if (code === 0x35)
      pc += a >= k ? jt : jf; // BPF_JGE
    else if (code === 0x45)
      pc += (a & k) !== 0 ? jt : jf; // BPF_JSET
    else if (code === 0x06)
      return k; // BPF_RET | BPF_K
    else throw new Error(`BPF instruction 0x${code.toString(16)} at ${pc - 1} is not one this test runs`);
  }
  throw new Error('the program ran off its end');
}

/** What libseccomp knows of this machine: its architecture's token and system call numbers, and termios's. */
interface Machine {
  arch: number;
  numbers: Record<string, number>;
  ioctls: Record<string, number>;
}

function machine(): Machine {
  const script = `
import json, sys, termios, seccomp
names = json.loads(sys.argv[1])
print(json.dumps({
    'arch': seccomp.system_arch(),
    'numbers': {name: seccomp.resolve_syscall(seccomp.Arch.NATIVE, name) for name in names},
    'ioctls': {name: getattr(termios, name) for name in ['TIOCSTI', 'TIOCLINUX', 'TIOCGWINSZ', 'TIOCSCTTY']},
}))`;
  const names = [...REFUSED_SYSCALLS, 'ioctl', 'personality', 'getpid', 'read'];
  return JSON.parse(
    execFileSync(SECCOMP_PYTHON, ['-c', script, JSON.stringify(names)], { encoding: 'utf8' }),
  );
}

const matches = (rules: MaskedRule[], value: number) =>
  rules.some(({ mask, value: wanted }) => (value & mask) >>> 0 === wanted);

/** 32-bit values that differ from `values` in one bit each, and random ones. */
function neighbours(values: number[], random: number): number[] {
  const out: number[] = [];
  for (const value of values) for (let n = 0; n < 32; n++) out.push((value ^ (2 ** n)) >>> 0);
  for (let i = 0; i < random; i++) out.push(Math.floor(Math.random() * 2 ** 32));
  return out;
}

describe('personalityRules', () => {
  it('match every 32-bit value but the query and PER_LINUX with its allowed flags, in 32 rules', () => {
    const rules = personalityRules();
    expect(rules).toHaveLength(32);
    for (const value of ALLOWED_PERSONALITIES) expect(matches(rules, value), value.toString(16)).toBe(false);
    const candidates = [...neighbours(ALLOWED_PERSONALITIES, 20_000), ...REFUSED_PERSONALITIES];
    for (const value of candidates.filter((v) => !ALLOWED_PERSONALITIES.includes(v)))
      expect(matches(rules, value), value.toString(16)).toBe(true);
  });

  it('hold for other allowed flags, and need each of their rules', () => {
    for (const flags of [0, PERSONALITY_FLAGS_ALLOWED, 0x80000001, 0x0f00f00f]) {
      const rules = personalityRules(flags);
      const allowed = (v: number) => v === PERSONALITY_QUERY || (v & ~flags) === 0;
      for (const value of neighbours([0, flags, PERSONALITY_QUERY], 5_000))
        expect(matches(rules, value), `${flags.toString(16)}: ${value.toString(16)}`).toBe(!allowed(value));
      // The query less one bit matches that bit's rule alone.
      rules.forEach(({ mask, value }, n) => {
        const others = rules.filter((_, i) => i !== n);
        expect(matches(others, (PERSONALITY_QUERY ^ (mask - value)) >>> 0)).toBe(false);
      });
    }
  });
});

describe('compileSeccompFilter', () => {
  let program: Buffer;
  let host: Machine;
  const call = (name: string, ...args: (number | bigint)[]) =>
    runFilter(program, { nr: host.numbers[name]!, arch: host.arch, args });

  beforeAll(async () => {
    program = await compileSeccompFilter();
    host = machine();
  });

  it('refuses each system call of its list with EPERM, and allows the others', () => {
    const known = REFUSED_SYSCALLS.filter((name) => host.numbers[name]! >= 0);
    expect(known.length).toBeGreaterThan(40);
    for (const name of known) expect(call(name), name).toBe(EPERM);
    expect(call('getpid')).toBe(ALLOW);
    expect(call('read', 0, 0, 0)).toBe(ALLOW);
  });

  it('refuses TIOCSTI and TIOCLINUX by the low 32 bits of the request, and allows other ioctls', () => {
    for (const name of ['TIOCSTI', 'TIOCLINUX']) {
      const request = host.ioctls[name]!;
      expect(call('ioctl', 0, request), name).toBe(EPERM);
      expect(call('ioctl', 7, request, 0x1000), name).toBe(EPERM);
      // The kernel reads the request as 32 bits: with high bits set it is the same request.
      expect(call('ioctl', 0, (1n << 32n) | BigInt(request)), name).toBe(EPERM);
      expect(call('ioctl', 0, (0xffffffffn << 32n) | BigInt(request)), name).toBe(EPERM);
    }
    expect(call('ioctl', 0, host.ioctls.TIOCGWINSZ!)).toBe(ALLOW);
    expect(call('ioctl', 0, host.ioctls.TIOCSCTTY!)).toBe(ALLOW);
    expect(call('ioctl', 0, host.ioctls.TIOCSTI! + 1)).toBe(ALLOW);
    expect(call('ioctl', host.ioctls.TIOCSTI!, 0)).toBe(ALLOW);
  });

  it('allows personality() to ask and to set PER_LINUX with Docker’s flags, and refuses every other value', () => {
    for (const value of ALLOWED_PERSONALITIES)
      expect(call('personality', value), value.toString(16)).toBe(ALLOW);
    // The kernel reads 32 bits: high bits change nothing, either way.
    expect(call('personality', 1n << 32n)).toBe(ALLOW);
    expect(call('personality', (1n << 32n) | 0x0040000n)).toBe(EPERM);
    for (const value of REFUSED_PERSONALITIES)
      expect(call('personality', value), value.toString(16)).toBe(EPERM);
    for (const value of neighbours(ALLOWED_PERSONALITIES, 2_000).filter(
      (v) => !ALLOWED_PERSONALITIES.includes(v),
    ))
      expect(call('personality', value), value.toString(16)).toBe(EPERM);
  });

  it.runIf(process.arch === 'x64')(
    'kills a call of the x32 or i386 ABI, which would pass by its rules',
    () => {
      expect(KILL).toContain(
        runFilter(program, { nr: X32_SYSCALL_BIT | host.numbers.ioctl!, arch: host.arch }),
      );
      expect(KILL).toContain(
        runFilter(program, { nr: X32_SYSCALL_BIT | host.numbers.personality!, arch: host.arch }),
      );
      // i386's ioctl (54) and personality (136).
      expect(KILL).toContain(runFilter(program, { nr: 54, arch: AUDIT_ARCH_I386, args: [0, 0x5412] }));
      expect(KILL).toContain(runFilter(program, { nr: 136, arch: AUDIT_ARCH_I386, args: [0x0040000] }));
    },
  );
});

describe('compileSeccompFilter without libseccomp', () => {
  let folder: string | undefined;
  afterEach(() => folder && rmSync(folder, { recursive: true, force: true }));

  /** A stand-in for the interpreter: a script that says `stderr` and prints `stdout`. */
  function standIn(stdout: string, stderr: string, code: number): string {
    folder = mkdtempSync(path.join(tmpdir(), 'streamgate-seccomp-'));
    const file = path.join(folder, 'python3');
    writeFileSync(file, `#!/bin/sh\nprintf '${stdout}'\necho "${stderr}" >&2\nexit ${code}\n`);
    chmodSync(file, 0o755);
    return file;
  }

  it('says which piece is missing or what libseccomp said', async () => {
    await expect(
      compileSeccompFilter(standIn('', "ModuleNotFoundError: No module named 'seccomp'", 1)),
    ).rejects.toThrow(/^libseccomp's Python binding \(python3-seccomp\) is not installed$/);
    await expect(
      compileSeccompFilter(standIn('', "AttributeError: module 'termios' has no attribute 'TIOCLINUX'", 1)),
    ).rejects.toThrow(
      "libseccomp could not compile it (AttributeError: module 'termios' has no attribute 'TIOCLINUX')",
    );
    await expect(compileSeccompFilter(standIn('', '', 0))).rejects.toThrow('libseccomp returned no filter');
    await expect(compileSeccompFilter(path.join(tmpdir(), 'no-such-python'))).rejects.toThrow(
      /^libseccomp could not compile it \(.*ENOENT/,
    );
  });
});
