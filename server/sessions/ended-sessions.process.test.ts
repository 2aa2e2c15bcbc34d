/**
 * The manager keeps the sessions that end, however they end, with real (stand-in) applications: it waits on their
 * processes, so it is a process test. The past sessions' own file is ended-sessions.test.ts's. This file's ports:
 * 28650-28659.
 */
import { describe, expect, it } from 'vitest';
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

describe('the manager keeps ended sessions', () => {
  const h = useManagerHarness(28650, 28659);

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
      ...testOptions(dataDir, 28650, 28659),
      capacity: 1,
    });
    try {
      await m.start();
      const running = await m.create(standInRequest());
      const queued = await m.create(standInRequest([], {}, 'bob'));
      pids.add(m.get(running.id)?.pid);
      await m.stop();
      m = testManager(testOptions(dataDir, 28650, 28659));
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
