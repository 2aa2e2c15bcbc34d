import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { launchApplication, repoRoot } from '../runners/local-spawn.ts';
import { isAlive, signalGroup } from '../runners/process-group.ts';
import { probeHealth } from './health-probe.ts';
import { Session, type SessionServices } from './session.ts';
import { stillDirOf, stillPath } from '../runners/still-files.ts';
import {
  freeBlock,
  sessionProcesses,
  standInRequest,
  tearDown,
  tempDataDir,
  testManager,
  testOptions,
  waitFor,
  type TestSettings,
} from '../../test-support/session-support.ts';
import type { SessionManager, SessionRecord } from './types.ts';

// This file's ports: 28050-28099.
const FIRST = 28050;
const LAST = 28099;

let manager: SessionManager | undefined;
let dataDir: string | undefined;
const pids = new Set<number | undefined>();

afterEach(async () => {
  await tearDown(manager, pids, dataDir);
  manager = undefined;
  dataDir = undefined;
});

/**
 * Runs a manager in another process, lets it create sessions, and kills it with SIGKILL once
 * `readyCount` are ready: its applications keep running, as after a crash of the service.
 */
async function crashedService(
  options: TestSettings,
  flags: string[][],
  readyCount: number,
  startedCount = 0,
) {
  const host = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'test-support/crash-host.ts',
      JSON.stringify(options),
      JSON.stringify(flags),
      String(readyCount),
      String(startedCount),
    ],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  pids.add(host.pid);
  let output = '';
  host.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise((resolve) => host.once('exit', resolve));
  await waitFor('the first service to report its sessions', () => output.includes('\n'), 25_000);
  host.kill('SIGKILL');
  await exited;
  const records = JSON.parse(output) as SessionRecord[];
  for (const record of records) pids.add(record.pid);
  return records;
}

describe('session manager after a crash of the service', () => {
  it('adopts applications still running, fails the dead ones, and resumes the queue in order', async () => {
    dataDir = await tempDataDir();
    const options = testOptions(dataDir, FIRST, LAST);
    // C is held back a second once started, so that it is still starting when its message is read.
    const [a, b, c, d] = await crashedService(options, [[], [], ['--ready-after-ms', '1000'], []], 2);
    expect([a?.state, b?.state, c?.state, d?.state]).toEqual(['ready', 'ready', 'pending', 'pending']);
    expect(sessionProcesses(a!.id)).toEqual([a!.pid]);
    // B's application dies while no service is watching.
    signalGroup(b!.pid!, 'SIGKILL');
    await waitFor('B to be gone', () => !isAlive(b!.pid!));

    manager = testManager(options);
    await manager.start();
    const m = manager;
    expect(m.get(a!.id)).toMatchObject({ state: 'ready', pid: a!.pid, ports: a!.ports });
    expect(m.get(b!.id)).toMatchObject({
      state: 'failed',
      message: 'USD Viewer 1.2.0 stopped while the service was down',
    });
    // B's GPU went to the first in the queue; the second still waits.
    expect(m.get(c!.id)?.message).toBe('Starting USD Viewer 1.2.0');
    expect(m.get(d!.id)?.message).toBe("Waiting for a free GPU: you're next");
    // The per-user limit counts the restored sessions that are not failed.
    expect(m.activeCount('alice')).toBe(3);
    await waitFor('C to be ready', () => m.get(c!.id)?.state === 'ready');
    const cPorts = m.get(c!.id)!.ports!;
    expect([cPorts.signaling, cPorts.media]).not.toContain(a!.ports!.signaling);
    expect([cPorts.signaling, cPorts.media]).not.toContain(a!.ports!.media);
    pids.add(m.get(c!.id)?.pid);

    // The adopted application is no longer a child: its death is noticed by polling.
    signalGroup(a!.pid!, 'SIGKILL');
    await waitFor('A to be marked failed', () => m.get(a!.id)?.state === 'failed');
    expect(m.get(a!.id)?.message).toBe('USD Viewer 1.2.0 exited');
    await waitFor('D to be ready', () => m.get(d!.id)?.state === 'ready');
    pids.add(m.get(d!.id)?.pid);
    expect(m.activeCount('alice')).toBe(2);

    await m.stop();
    for (const record of [a, b, c, d]) expect(sessionProcesses(record!.id)).toEqual([]);
  });

  it('reports ready at once an application that became ready while the service was down', async () => {
    dataDir = await tempDataDir();
    const options = testOptions(dataDir, FIRST, LAST);
    const [a] = await crashedService(options, [['--ready-after-ms', '1000']], 0, 1);
    expect(a?.state).toBe('pending');
    await waitFor(
      'the application to be ready',
      async () => (await probeHealth('127.0.0.1', a!.ports!.signaling)).ok,
    );
    manager = testManager(options);
    await manager.start();
    expect(manager.get(a!.id)).toMatchObject({
      state: 'ready',
      pid: a!.pid,
      message: 'USD Viewer 1.2.0 is ready',
    });
  });

  it('ends an adopted application on end() and on stop()', async () => {
    dataDir = await tempDataDir();
    const options = testOptions(dataDir, FIRST, LAST);
    const [a, b] = await crashedService(options, [['--spawn-child'], []], 2);
    manager = testManager(options);
    await manager.start();
    // The still an adopted application keeps: no child handle of this service removes it on exit.
    const still = stillPath(stillDirOf(dataDir), a!.id);
    await mkdir(path.dirname(still), { recursive: true });
    await writeFile(still, 'jpeg');
    await manager.end(a!.id);
    expect(sessionProcesses(a!.id)).toEqual([]);
    expect(manager.get(a!.id)).toBeUndefined();
    expect(existsSync(still)).toBe(false);
    expect(manager.get(b!.id)?.state).toBe('ready');
    await manager.stop();
    expect(sessionProcesses(b!.id)).toEqual([]);
  });

  it('recovers from a torn state file with its backup copy, and starts empty when both are unreadable', async () => {
    dataDir = await tempDataDir();
    const options = testOptions(dataDir, FIRST, LAST);
    const first = testManager(options);
    await first.start();
    const failed = await first.create(standInRequest(['--exit-after-ms', '0']));
    await waitFor('the failure', () => first.get(failed.id)?.state === 'failed');
    await first.stop();

    const file = path.join(dataDir, 'sessions.json');
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.slice(0, text.length / 2));
    manager = testManager(options);
    await manager.start();
    expect(manager.get(failed.id)?.state).toBe('failed');
    await manager.stop();

    await writeFile(file, '{"version": 1, "sess');
    await writeFile(`${file}.bak`, 'not json at all');
    manager = testManager(options);
    await manager.start();
    expect(manager.list(null, 0, 10).count).toBe(0);
    const fresh = await manager.create(standInRequest());
    await waitFor('a new session to be ready', () => manager?.get(fresh.id)?.state === 'ready');
    pids.add(manager.get(fresh.id)?.pid);
  });

  it('finds the application of a session whose pid never reached the state file', async () => {
    dataDir = await tempDataDir();
    const options = testOptions(dataDir, FIRST, LAST);
    // Saved while starting: one with its ports, one without; both applications run.
    // Only their saved forms are used: they never launch.
    const services = {} as SessionServices;
    const withPorts = Session.create(standInRequest(), 1, services, () => {});
    const block = await freeBlock(FIRST + 30, LAST, 4);
    withPorts.record.ports = { signaling: block, media: block + 1 };
    const withoutPorts = Session.create(standInRequest(), 2, services, () => {});
    const logDir = path.join(dataDir, 'logs');
    const adoptable = await launchApplication(
      {
        sessionId: withPorts.record.id,
        request: withPorts.request,
        ports: withPorts.record.ports,
        host: '127.0.0.1',
      },
      { logDir, cwd: options.appCwd },
    );
    const stray = await launchApplication(
      {
        sessionId: withoutPorts.record.id,
        request: withoutPorts.request,
        ports: { signaling: block + 2, media: block + 3 },
        host: '127.0.0.1',
      },
      { logDir, cwd: options.appCwd },
    );
    pids.add(adoptable.pid).add(stray.pid);
    await waitFor('the application to be ready', async () => (await probeHealth('127.0.0.1', block)).ok);
    const state = {
      version: 1,
      savedAt: new Date().toISOString(),
      sessions: [withPorts, withoutPorts].map((session) => session.persisted()),
    };
    await writeFile(path.join(dataDir, 'sessions.json'), JSON.stringify(state));

    manager = testManager(options);
    await manager.start();
    expect(manager.get(withPorts.record.id)).toMatchObject({ state: 'ready', pid: adoptable.pid });
    await waitFor('the stray application to be stopped', () => !isAlive(stray.pid!));
    // The session itself starts again, with ports the manager knows.
    await waitFor(
      'the session to start again',
      () => manager?.get(withoutPorts.record.id)?.state === 'ready',
    );
    pids.add(manager.get(withoutPorts.record.id)?.pid);
    expect(manager.get(withoutPorts.record.id)?.pid).not.toBe(stray.pid);
  });
});
