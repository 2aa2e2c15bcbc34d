import { afterEach, describe, expect, it } from 'vitest';
import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createServer, type Server } from 'node:net';
import { isAlive } from '../runners/process-group.ts';
import { probeHealth } from './health-probe.ts';
import { canBind } from './port-pool.ts';
import { createSessionManager } from './manager.ts';
import {
  killGroups,
  removeDir,
  sessionProcesses,
  standInRequest,
  tempDataDir,
  testOptions,
  waitFor,
} from './test-support.ts';
import { QueueFullError, type SessionManager, type SessionRecord } from './types.ts';

// This file's ports: 48000-48049.
const FIRST = 48000;
const LAST = 48049;

let manager: SessionManager | undefined;
let dataDir: string | undefined;
const pids = new Set<number | undefined>();

/** What the manager logged, as "<session id> <message>" lines. */
let logged: string[] = [];
const logger = {
  info: (fields: Record<string, unknown>, message: string) =>
    logged.push(`${String(fields.sessionId)} ${message}`),
  warn: (fields: Record<string, unknown>, message: string) =>
    logged.push(`${String(fields.sessionId)} ${message}`),
  error: (fields: Record<string, unknown>, message: string) =>
    logged.push(`${String(fields.sessionId)} ${message}`),
};

async function setup(overrides: Partial<ReturnType<typeof testOptions>> = {}) {
  dataDir = await tempDataDir();
  logged = [];
  manager = createSessionManager({ ...testOptions(dataDir, FIRST, LAST), ...overrides }, logger);
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

  it('marks a session failed with the reason when its application exits, frees its GPU and starts the next', async () => {
    const m = await setup({ capacity: 1 });
    const doomed = await m.create(standInRequest(['--exit-after-ms', '300', '--exit-code', '1']));
    const next = await m.create(standInRequest());
    expect(m.get(next.id)?.message).toBe('Waiting for a free GPU: 0 sessions ahead');
    await waitFor('the failure', () => track(m.get(doomed.id))?.state === 'failed');
    const failed = m.get(doomed.id)!;
    expect(failed.message).toMatch(/^USD Viewer 1\.2\.0 exited with code 1( before it was ready)?$/);
    expect(failed.failedAt).toBeDefined();
    expect(failed.ports).toBeUndefined();
    await ready(m, next.id);
    expect(m.counts()).toMatchObject({ ready: 1, failed: 1, queued: 0 });
  });

  it('fails a session whose application does not answer within its start-up timeout and stops that application', async () => {
    const m = await setup({ readyWaitMs: 15_000 });
    const created = track(await m.create(standInRequest(['--never-ready'], { startupTimeoutMs: 1_500 })))!;
    expect(created.state).toBe('failed');
    expect(created.message).toBe('USD Viewer 1.2.0 was not ready within 1.5 s');
    expect(created.ports).toBeUndefined();
    await waitFor('the application to be stopped', () => sessionProcesses(created.id).length === 0);
  });

  it('answers pending when the application is slower than readyWaitMs', async () => {
    const m = await setup({ readyWaitMs: 100 });
    const created = track(await m.create(standInRequest(['--ready-after-ms', '1500'])))!;
    expect(created.state).toBe('pending');
    expect(created.message).toBe('Starting USD Viewer 1.2.0');
    await ready(m, created.id);
  });

  it('escalates to SIGKILL when the application ignores SIGTERM', async () => {
    const m = await setup({ readyWaitMs: 15_000, stopGraceMs: 300 });
    const created = track(await m.create(standInRequest(['--ignore-sigterm'])))!;
    expect(created.state).toBe('ready');
    await m.end(created.id);
    expect(isAlive(created.pid!)).toBe(false);
  });

  it('never gives one port to two sessions, skips ports held by others, and frees every port', async () => {
    // Six ports with the first held (TCP and UDP) by another program: room for two sessions and one
    // port to spare (the range lies among the system's ephemeral ports, where a passing connection may
    // hold one for a moment).
    const squatter: Server = createServer();
    await new Promise<void>((resolve) => squatter.listen(FIRST, '127.0.0.1', resolve));
    const udpSquatter = createSocket('udp4');
    await new Promise<void>((resolve) => udpSquatter.bind(FIRST, '127.0.0.1', resolve));
    try {
      const m = await setup({
        capacity: 3,
        queueLimit: 0,
        readyWaitMs: 15_000,
        portRange: { first: FIRST, last: FIRST + 5 },
      });
      const a = track(await m.create(standInRequest()))!;
      const b = track(await m.create(standInRequest()))!;
      const c = track(await m.create(standInRequest()))!;
      expect([a.state, b.state]).toEqual(['ready', 'ready']);
      const used = [a, b].flatMap((r) => [r.ports!.signaling, r.ports!.media]);
      expect(new Set(used).size).toBe(4);
      expect(used).not.toContain(FIRST);
      expect(c.state).toBe('failed');
      expect(c.message).toMatch(/^No free network port/);

      await m.end(a.id);
      await m.end(b.id);
      await waitFor('every port to be free again', async () => {
        for (const port of used) {
          if (!(await canBind(port, 'tcp')) || !(await canBind(port, 'udp'))) return false;
        }
        return true;
      });
      // Freed in the pool as well: new sessions get ports again.
      const d = track(await m.create(standInRequest()))!;
      const e = track(await m.create(standInRequest()))!;
      expect([d.state, e.state]).toEqual(['ready', 'ready']);
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
      await new Promise<void>((resolve) => udpSquatter.close(resolve));
    }
  });

  it('keeps a failed session visible for failedRetentionMs, then forgets it', async () => {
    const m = await setup({ failedRetentionMs: 2_000 });
    const created = await m.create(standInRequest(['--exit-after-ms', '0']));
    await waitFor('the failure', () => m.get(created.id)?.state === 'failed');
    expect(m.list(null, 0, 10).count).toBe(1);
    await waitFor('the failed session to be forgotten', () => m.get(created.id) === undefined);
    expect(m.counts().failed).toBe(0);
  });

  it('ends a session without viewers after idleTimeoutMs, and one older than maxLifetimeMs', async () => {
    const m = await setup({ capacity: 3 });
    const idle = await m.create(standInRequest([], { idleTimeoutMs: 300 }));
    const watched = await m.create(standInRequest(['--viewers', '1'], { idleTimeoutMs: 300 }));
    const old = await m.create(standInRequest(['--viewers', '1'], { maxLifetimeMs: 1_500 }));
    await ready(m, watched.id);
    await waitFor('the idle session to end', () => m.get(idle.id) === undefined);
    expect(logged).toContain(`${idle.id} USD Viewer 1.2.0 had no viewer for a while; ending it`);
    expect(sessionProcesses(idle.id)).toEqual([]);
    await waitFor('the old session to end', () => m.get(old.id) === undefined);
    expect(logged).toContain(`${old.id} USD Viewer 1.2.0 reached its maximum lifetime; ending it`);
    expect(sessionProcesses(old.id)).toEqual([]);
    // Many health checks later, the session with a viewer is still there.
    expect(m.get(watched.id)?.state).toBe('ready');
  });

  it('lists sessions by owner, oldest first, with offset and limit', async () => {
    const m = await setup({ capacity: 1, queueLimit: 5 });
    const a1 = await m.create(standInRequest([], {}, 'alice'));
    const b1 = await m.create(standInRequest([], {}, 'bob'));
    const a2 = await m.create(standInRequest([], {}, 'alice'));
    expect(m.list('alice', 0, 10).items.map((r) => r.id)).toEqual([a1.id, a2.id]);
    expect(m.list(null, 1, 1)).toMatchObject({ count: 3, items: [{ id: b1.id }] });
    await m.end(b1.id);
    expect(m.get(a2.id)?.message).toBe('Waiting for a free GPU: 0 sessions ahead');
  });

  it('stop() ends every session, queued ones included, and leaves no process behind', async () => {
    const m = await setup({ capacity: 2, queueLimit: 2 });
    const a = await ready(m, (await m.create(standInRequest(['--spawn-child']))).id);
    const b = await ready(m, (await m.create(standInRequest(['--ignore-sigterm']))).id);
    const queued = await m.create(standInRequest());
    const { childPid } = (await (await fetch(`http://127.0.0.1:${a.ports!.signaling}/health`)).json()) as {
      childPid: number;
    };
    pids.add(childPid);
    await m.stop();
    for (const pid of [a.pid!, b.pid!, childPid]) expect(isAlive(pid)).toBe(false);
    expect(sessionProcesses(a.id)).toEqual([]);
    expect(m.get(queued.id)).toBeUndefined();
    expect(m.counts()).toEqual({ pending: 0, ready: 0, failed: 0, queued: 0 });
  });

  it('fails a session whose command cannot be started, without taking a GPU', async () => {
    const m = await setup({ capacity: 1 });
    const request = standInRequest();
    request.launch = { command: ['streamgate-no-such-program', '{session_id}'] };
    const created = await m.create(request);
    await waitFor('the failure', () => m.get(created.id)?.state === 'failed');
    expect(m.get(created.id)?.message).toBe('USD Viewer 1.2.0 could not be started');
    const next = await m.create(standInRequest());
    expect(next.message).toBe('Starting USD Viewer 1.2.0');
  });

  it('refuses settings that cannot work', () => {
    expect(() => createSessionManager({ ...testOptions('unused', FIRST, LAST), capacity: 0 })).toThrow(
      /Capacity/,
    );
    expect(() => createSessionManager({ ...testOptions('unused', FIRST, LAST), queueLimit: -1 })).toThrow(
      /queue/,
    );
  });

  it('ends a session that is still starting, once however often it is asked', async () => {
    const m = await setup({ capacity: 1 });
    const starting = await m.create(standInRequest(['--ready-after-ms', '60000']));
    const queued = await m.create(standInRequest());
    await waitFor('the application to run', () => sessionProcesses(starting.id).length > 0);
    await Promise.all([m.end(starting.id), m.end(starting.id)]);
    expect(m.get(starting.id)).toBeUndefined();
    expect(sessionProcesses(starting.id)).toEqual([]);
    // Its GPU goes to the next in line.
    expect(m.get(queued.id)?.message).toBe('Starting USD Viewer 1.2.0');
    await m.end(queued.id);

    // Ended at once, while its ports or its process were still being set up.
    const hasty = await m.create(standInRequest());
    expect(hasty.message).toBe('Starting USD Viewer 1.2.0');
    await m.end(hasty.id);
    expect(m.get(hasty.id)).toBeUndefined();
    expect(sessionProcesses(hasty.id)).toEqual([]);
    expect(m.counts()).toEqual({ pending: 0, ready: 0, failed: 0, queued: 0 });
  });

  it('starts an application again on other ports when another program took one of its ports first', async () => {
    const m = await setup({ readyWaitMs: 15_000 });
    const marker = path.join(dataDir!, 'port-holder.pid');
    const created = track(await m.create(standInRequest(['--port-taken-once', marker])))!;
    const holder = Number(await readFile(marker, 'utf8'));
    pids.add(holder);
    expect(created.state).toBe('ready');
    expect(logged).toContain(
      `${created.id} Another program took a port of USD Viewer 1.2.0 before it could bind it; starting it again on other ports`,
    );
    // The port the holder took is not the session's now.
    const held = readFileSync(`/proc/${holder}/cmdline`, 'utf8').split('\0')[3];
    expect(Number(held)).toBeGreaterThanOrEqual(FIRST);
    expect(created.ports?.signaling).not.toBe(Number(held));
    expect(await probeHealth('127.0.0.1', created.ports!.signaling)).toMatchObject({ ok: true });
  });
});
