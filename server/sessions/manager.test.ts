import { afterEach, describe, expect, it } from 'vitest';
import { isAlive } from '../runners/process-group.ts';
import { probeHealth } from './health-probe.ts';
import { createSessionManager } from './manager.ts';
import { killGroups, removeDir, standInRequest, tempDataDir, testOptions, waitFor } from './test-support.ts';
import { QueueFullError, type SessionManager, type SessionRecord } from './types.ts';

// This file's ports: 48000-48049.
const FIRST = 48000;
const LAST = 48049;

let manager: SessionManager | undefined;
let dataDir: string | undefined;
const pids = new Set<number | undefined>();

async function setup(overrides: Partial<ReturnType<typeof testOptions>> = {}) {
  dataDir = await tempDataDir();
  manager = createSessionManager({ ...testOptions(dataDir, FIRST, LAST), ...overrides });
  await manager.start();
  return manager;
}

function track(record: SessionRecord | undefined): SessionRecord | undefined {
  pids.add(record?.pid);
  return record;
}

async function ready(m: SessionManager, id: string): Promise<SessionRecord> {
  await waitFor(`session ${id} to be ready`, () => track(m.get(id))?.state === 'ready');
  return m.get(id) as SessionRecord;
}

afterEach(async () => {
  await manager?.stop();
  killGroups(pids);
  pids.clear();
  if (dataDir) await removeDir(dataDir);
  manager = undefined;
  dataDir = undefined;
});

describe('session manager', () => {
  it('starts a session, reports it ready with its ports, and ends it leaving no process', async () => {
    const m = await setup({ readyWaitMs: 15_000 });
    const created = track(await m.create(standInRequest(['--spawn-child'])))!;
    expect(created.state).toBe('ready');
    expect(created.message).toBe('USD Viewer 1.2.0 is ready');
    expect(created.ports?.signaling).toBeGreaterThanOrEqual(FIRST);
    expect(created.ports?.media).not.toBe(created.ports?.signaling);
    const health = await probeHealth('127.0.0.1', created.ports!.signaling);
    expect(health.ok).toBe(true);
    const response = await fetch(`http://127.0.0.1:${created.ports!.signaling}/health`);
    const { childPid } = (await response.json()) as { childPid: number };
    pids.add(childPid);
    expect(isAlive(childPid)).toBe(true);

    await m.end(created.id);
    expect(m.get(created.id)).toBeUndefined();
    expect(isAlive(created.pid!)).toBe(false);
    // The whole process group is stopped, not only its leader.
    expect(isAlive(childPid)).toBe(false);
    expect(m.counts()).toEqual({ pending: 0, ready: 0, failed: 0, queued: 0 });
  });

  it('runs at most `capacity` sessions, queues the rest first in first out, and refuses past the queue limit', async () => {
    const m = await setup({ capacity: 1, queueLimit: 2 });
    const first = await m.create(standInRequest());
    const second = await m.create(standInRequest());
    const third = await m.create(standInRequest());
    await expect(m.create(standInRequest())).rejects.toBeInstanceOf(QueueFullError);
    expect(m.get(first.id)?.message).toBe('Starting USD Viewer 1.2.0');
    expect(m.get(second.id)?.message).toBe('Waiting for a free GPU: 0 sessions ahead');
    expect(m.get(third.id)?.message).toBe('Waiting for a free GPU: 1 session ahead');
    expect(m.counts()).toMatchObject({ pending: 3, queued: 2 });

    await ready(m, first.id);
    expect(m.get(second.id)?.state).toBe('pending');
    await m.end(first.id);
    await ready(m, second.id);
    expect(m.get(third.id)?.message).toBe('Waiting for a free GPU: 0 sessions ahead');
    // Ending a queued session takes it out of the queue.
    await m.end(third.id);
    expect(m.get(third.id)).toBeUndefined();
    expect(m.counts()).toMatchObject({ ready: 1, queued: 0, pending: 0 });
  });
});
