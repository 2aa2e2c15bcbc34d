import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isAlive, startTicks } from '../runners/process-group.ts';
import { DataDirInUseError, ServiceLock } from './service-lock.ts';
import { removeDir, tempDataDir, waitFor } from '../../test-support/session-support.ts';

let dir: string | undefined;
let other: ReturnType<typeof spawn> | undefined;

afterEach(async () => {
  other?.kill('SIGKILL');
  other = undefined;
  if (dir) await removeDir(dir);
  dir = undefined;
});

async function otherProcess(): Promise<number> {
  other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  const pid = other.pid!;
  await waitFor('the other process', () => startTicks(pid) !== undefined);
  return pid;
}

describe('ServiceLock', () => {
  it('refuses a data directory held by another live process, and releases only its own lock', async () => {
    dir = await tempDataDir();
    const pid = await otherProcess();
    const file = path.join(dir, 'service.lock');
    await writeFile(file, JSON.stringify({ pid, startTicks: startTicks(pid) }));
    const lock = new ServiceLock(dir);
    await expect(lock.acquire()).rejects.toBeInstanceOf(DataDirInUseError);
    await lock.release();
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ pid });
  });

  it('takes over a lock whose holder is dead or whose pid now belongs to another process', async () => {
    dir = await tempDataDir();
    const pid = await otherProcess();
    const file = path.join(dir, 'service.lock');
    await writeFile(file, JSON.stringify({ pid, startTicks: '1' }));
    await new ServiceLock(dir).acquire();
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ pid: process.pid });

    other!.kill('SIGKILL');
    await waitFor('the other process to die', () => !isAlive(pid));
    await writeFile(file, JSON.stringify({ pid }));
    const lock = new ServiceLock(dir);
    await lock.acquire();
    await lock.release();
    await expect(readFile(file)).rejects.toThrow(/ENOENT/);
  });
});
