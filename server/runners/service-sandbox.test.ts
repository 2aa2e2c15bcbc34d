/**
 * Where no sandbox can be made, real programs are refused in one sentence and never run bare; the sample
 * application still runs. (What a sandbox holds is tested with real programs in reliability/sandbox.test.ts.)
 */
import { mkdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxKit } from '../../sandbox/availability.ts';
import { DomainError } from '../errors.ts';
import type { SessionManager } from '../sessions/types.ts';
import {
  removeDir,
  standInRequest,
  tempDataDir,
  testManager,
  testOptions,
} from '../../test-support/session-support.ts';
import { ServiceSandbox } from './service-sandbox.ts';

const WHY = 'bubblewrap (bwrap) is not installed: run npm run setup';

let dir: string | undefined;
let manager: SessionManager | undefined;
afterEach(async () => {
  await manager?.stop();
  if (dir) await removeDir(dir);
  manager = undefined;
  dir = undefined;
});

describe('ServiceSandbox', () => {
  it('refuses real programs in one sentence where no sandbox can be made', async () => {
    dir = await tempDataDir();
    const sandbox = await ServiceSandbox.prepare(dir, WHY);
    expect(sandbox.refusal).toBe(WHY);
    expect(sandbox.refuses('Terminal')).toBe(
      `Terminal cannot start: real programs run only in a sandbox, and ${WHY}.`,
    );
    expect(sandbox.seccomp).toBeNull();
    expect(sandbox.group('s', { cpus: 1, memoryMb: 64, pids: 8 })).toBeNull();
  });

  it('keeps the compiled filter in a file of the data directory that only the service reads', async () => {
    dir = await tempDataDir();
    const kit = { hierarchy: { version: 2, bases: [] }, seccomp: Buffer.alloc(16, 1) } satisfies SandboxKit;
    const sandbox = await ServiceSandbox.prepare(dir, kit);
    expect(sandbox.refusal).toBeNull();
    const file = path.join(dir, 'sandbox', 'seccomp.bpf');
    expect(sandbox.seccomp).toEqual({ bytes: kit.seccomp, file });
    expect(await readFile(file)).toEqual(kit.seccomp);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(path.dirname(file))).mode & 0o777).toBe(0o700);
  });

  it('refuses real programs in words, and starts, where the filter cannot be written (a full disk)', async () => {
    dir = await tempDataDir();
    // The filter's place is taken by a folder: the write fails as it does on a full or read-only disk.
    await mkdir(path.join(dir, 'sandbox', 'seccomp.bpf'), { recursive: true });
    const kit = { hierarchy: { version: 2, bases: [] }, seccomp: Buffer.alloc(16, 1) } satisfies SandboxKit;
    const sandbox = await ServiceSandbox.prepare(dir, kit);
    expect(sandbox.refuses('Terminal')).toBe(
      'Terminal cannot start: real programs run only in a sandbox, and the seccomp filter could not be written into the data directory (EISDIR).',
    );
    expect(sandbox.seccomp).toBeNull();
  });

  it('makes the manager answer a launch of a real program with a 503 that says why, and start nothing', async () => {
    dir = await tempDataDir();
    manager = testManager({
      ...testOptions(dir, 28300, 28309),
      sandbox: await ServiceSandbox.prepare(dir, WHY),
    });
    await manager.start();
    const terminal = { ...standInRequest(), launch: { display: { command: ['xterm'] } } };
    terminal.app = { id: 'terminal', name: 'Terminal' };
    const refused = await manager.create(terminal).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DomainError);
    expect((refused as DomainError).statusCode).toBe(503);
    expect((refused as DomainError).detail).toMatch(
      /^Terminal cannot start: real programs run only in a sandbox/,
    );
    // A self-streaming command is a program of the catalog too.
    await expect(manager.create(standInRequest())).rejects.toThrow(/cannot start/);
    expect(manager.counts()).toEqual({ pending: 0, ready: 0, failed: 0, queued: 0, warm: 0 });
  });
});
