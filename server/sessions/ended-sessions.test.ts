// This file's ports: 48650-48659.
import { readFile, rm, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EndedSessions } from './ended-sessions.ts';
import type { EndedSession, SessionManager } from './types.ts';
import { useManagerHarness } from '../../test-support/manager-harness.ts';
import {
  standInRequest,
  tearDown,
  tempDataDir,
  testManager,
  testOptions,
  waitFor,
} from '../../test-support/session-support.ts';

const DAY = 24 * 3_600_000;

function ended(n: number, endedAt: number, owner = 'alice'): EndedSession {
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    owner,
    appId: 'usd-viewer',
    version: '1.2.0',
    profileId: 'default',
    createdAt: new Date(endedAt - 60_000).toISOString(),
    endedAt: new Date(endedAt).toISOString(),
    cause: 'deleted',
    reason: `Ended by ${owner}`,
    endedBy: owner,
  };
}

describe('the store of ended sessions', () => {
  let dir: string;
  let clock: number;
  const now = () => clock;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'streamgate-ended-'));
    clock = Date.parse('2025-03-01T09:00:00Z');
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('lists newest first, by owner or all, a page at a time', () => {
    const store = new EndedSessions(dir, { now });
    store.add(ended(1, clock - 3_000));
    store.add(ended(2, clock - 2_000, 'bob'));
    store.add(ended(3, clock - 1_000));
    expect(store.list(null, 0, 10).items.map((e) => e.id.slice(-1))).toEqual(['3', '2', '1']);
    expect(store.list('alice', 0, 10)).toMatchObject({
      count: 2,
      items: [{ owner: 'alice' }, { owner: 'alice' }],
    });
    expect(store.list(null, 1, 1)).toMatchObject({ count: 3, items: [{ id: ended(2, 0).id }] });
  });

  it('keeps them across restarts, and forgets those past the retention and beyond the limit', async () => {
    const first = new EndedSessions(dir, { now, limit: 3 });
    await first.load();
    first.add(ended(1, clock - 31 * DAY));
    first.add(ended(2, clock - 29 * DAY));
    first.add(ended(3, clock - 2 * DAY));
    first.add(ended(4, clock - DAY));
    await first.flush();
    // A line torn by a crash, and one that is no ended session, are passed over.
    await writeFile(first.file, '{"id":"x"}\n{"id":', { flag: 'a' });
    const second = new EndedSessions(dir, { now, limit: 3 });
    await second.load();
    expect(second.list(null, 0, 10).items.map((e) => e.id.slice(-1))).toEqual(['4', '3', '2']);
    // A day later the oldest is past 30 days.
    clock += 2 * DAY;
    expect(second.list(null, 0, 10).items.map((e) => e.id.slice(-1))).toEqual(['4', '3']);
    // The file was rewritten at the load with what is kept.
    await second.flush();
    const lines = (await readFile(second.file, 'utf8')).split('\n').filter(Boolean);
    expect(lines.map((line) => (JSON.parse(line) as EndedSession).id.slice(-1))).toEqual(['2', '3', '4']);
  });
});

describe('the manager keeps ended sessions', () => {
  const h = useManagerHarness(48650, 48659);

  /** Launches `flags` with `settings` and waits until it ended, by itself or as `end` ends it. */
  async function lifeOf(
    m: SessionManager,
    flags: string[],
    settings: Parameters<typeof standInRequest>[1] = {},
    end?: (id: string) => Promise<void>,
  ): Promise<EndedSession | undefined> {
    const heard: EndedSession[] = [];
    m.onEnded((e) => heard.push(e));
    const { id } = await m.create(standInRequest(flags, settings));
    h.track(m.get(id));
    if (end) {
      await h.ready(m, id);
      await end(id);
    }
    await waitFor('the session to end', () => heard.some((e) => e.id === id));
    const listed = m.endedSessions('alice', 0, 50).items.find((e) => e.id === id);
    expect(listed).toEqual(heard.find((e) => e.id === id));
    return listed;
  }

  it('ended by a person, with who did it', async () => {
    const m = await h.setup();
    const past = await lifeOf(m, [], {}, (id) => m.end(id, 'ada'));
    expect(past).toMatchObject({ cause: 'deleted', reason: 'Ended by ada', endedBy: 'ada', owner: 'alice' });
    expect(Date.parse(past?.endedAt ?? '')).toBeGreaterThanOrEqual(Date.parse(past?.createdAt ?? ''));
  });

  it('ended by itself: idle, at its lifetime, its program closed, or failed', async () => {
    const m = await h.setup({ capacity: 4, queueLimit: 4 });
    const [idle, lifetime, exited, failed] = await Promise.all([
      lifeOf(m, [], { idleTimeoutMs: 1_000 }),
      lifeOf(m, ['--viewers', '1'], { maxLifetimeMs: 1_000 }),
      lifeOf(m, ['--exit-after-ms', '500', '--exit-code', '0']),
      lifeOf(m, ['--exit-after-ms', '500']),
    ]);
    expect(idle).toMatchObject({ cause: 'idle', reason: 'Ended after 1 s without a viewer' });
    expect(lifetime).toMatchObject({ cause: 'lifetime', reason: 'Ended at its maximum lifetime of 1 s' });
    expect(exited).toMatchObject({ cause: 'exited', reason: 'USD Viewer 1.2.0 exited' });
    expect(failed).toMatchObject({ cause: 'failed', reason: expect.stringContaining('exited with code 1') });
    expect(failed).not.toHaveProperty('endedBy');
    // A failed session ended later by its owner is still one past session.
    await m.end(failed?.id ?? '', 'alice');
    expect(m.endedSessions('alice', 0, 50).items.filter((e) => e.id === failed?.id)).toHaveLength(1);
  });

  it('ended by the service stopping, and all of them kept across a restart', async () => {
    const dataDir = await tempDataDir();
    const pids = new Set<number | undefined>();
    let m: SessionManager | undefined = testManager({
      ...testOptions(dataDir, 48650, 48659),
      capacity: 1,
    });
    try {
      await m.start();
      const running = await m.create(standInRequest());
      const queued = await m.create(standInRequest([], {}, 'bob'));
      pids.add(m.get(running.id)?.pid);
      await m.stop();
      m = testManager(testOptions(dataDir, 48650, 48659));
      await m.start();
      const past = m.endedSessions(null, 0, 50);
      expect(past.items.map((e) => [e.id, e.cause, e.reason]).sort()).toEqual(
        [
          [running.id, 'shutdown', 'Ended when the service stopped'],
          [queued.id, 'shutdown', 'Ended when the service stopped'],
        ].sort(),
      );
      expect(m.endedSessions('bob', 0, 50).items.map((e) => e.id)).toEqual([queued.id]);
    } finally {
      await tearDown(m, pids, dataDir);
    }
  });
});
