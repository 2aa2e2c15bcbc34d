import { mkdir, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useManagerHarness } from '../../test-support/manager-harness.ts';
import type { PersistedSession } from './saved-session.ts';
import { StateFileRepository } from '../state/state-file-repository.ts';
import { freeBlock, standInRequest, waitFor } from '../../test-support/session-support.ts';
import { StateWriteError, type SessionManager } from './types.ts';

// This file's ports: 23000-23019.
const FIRST = 23000;
const LAST = 23019;

const { setup, track, ready, dataDir } = useManagerHarness(FIRST, LAST);

/** The sessions in the newest state on disk, as a restarted service would read them. */
async function savedSessions(): Promise<PersistedSession[]> {
  const store = new StateFileRepository<PersistedSession>(dataDir(), {
    items: () => new Map(),
    key: (session) => session.record.id,
  });
  return (await store.load()).sessions;
}

async function savedIds(): Promise<Set<string>> {
  return new Set((await savedSessions()).map((session) => session.record.id));
}

async function savedSession(id: string): Promise<PersistedSession | undefined> {
  return (await savedSessions()).find((session) => session.record.id === id);
}

/** Makes every state write fail (a directory in the state file's place), until the returned undo. */
async function blockWrites(): Promise<() => Promise<void>> {
  const file = path.join(dataDir(), 'sessions.json');
  await rm(file, { force: true });
  await mkdir(file);
  return () => rmdir(file);
}

async function createFails(m: SessionManager): Promise<StateWriteError> {
  const error: unknown = await m.create(standInRequest()).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(StateWriteError);
  return error as StateWriteError;
}

describe('session manager: durable creation', () => {
  it('answers every concurrent create only once its session is on disk, while other saves keep coming', async () => {
    const m = await setup({ capacity: 1, queueLimit: 100 });
    track(await m.create(standInRequest()));
    let going = true;
    // Sessions created and ended one after another keep the state file busy throughout.
    const churn = (async () => {
      while (going) await m.end((await m.create(standInRequest())).id);
    })();
    const created = await Promise.all(Array.from({ length: 20 }, () => m.create(standInRequest())));
    const onDisk = await savedIds();
    going = false;
    await churn;
    for (const record of created) {
      expect(onDisk.has(record.id)).toBe(true);
      expect(record.state).toBe('pending');
    }
  });

  it('undoes a session that started when its save fails: no session, no port, no GPU is left taken', async () => {
    const first = await freeBlock(FIRST, LAST, 2);
    // One port pair and one GPU: a leak of either would stop the next session.
    const m = await setup({ capacity: 1, portRange: { first, last: first + 1 } });
    const unblock = await blockWrites();
    const error = await createFails(m);
    expect(error.message).toBe(
      'The service cannot save sessions right now (the data directory cannot be written); try again later.',
    );
    expect(m.counts()).toEqual({ pending: 0, ready: 0, failed: 0, queued: 0, warm: 0 });
    expect(m.list(null, 0, 10).count).toBe(0);
    await unblock();
    const next = await m.create(standInRequest());
    expect(next.message).toBe('Starting USD Viewer 1.2.0');
    expect((await ready(m, next.id)).ports).toEqual({ signaling: first, media: first + 1 });
    expect((await savedIds()).has(next.id)).toBe(true);
  });

  it('undoes a queued session when its save fails, leaving its place in the queue free', async () => {
    const m = await setup({ capacity: 1, queueLimit: 1 });
    const holder = track(await m.create(standInRequest()))!;
    const unblock = await blockWrites();
    await createFails(m);
    expect(m.counts()).toMatchObject({ queued: 0 });
    expect(m.list(null, 0, 10).items.map((record) => record.id)).toEqual([holder.id]);
    await unblock();
    const next = await m.create(standInRequest());
    expect(next.message).toBe("Waiting for a free GPU: you're next");
  });

  it('saves what changed in a session that waited in the queue once it starts', async () => {
    const m = await setup({ capacity: 1 });
    const holder = track(await m.create(standInRequest()))!;
    const queued = await m.create(standInRequest());
    expect((await savedSession(queued.id))?.record.ports).toBeUndefined();
    await m.end(holder.id);
    const started = await ready(m, queued.id);
    await waitFor('the started session to be saved', async () => {
      const saved = await savedSession(queued.id);
      return saved?.record.state === 'ready' && saved.record.pid === started.pid;
    });
    expect((await savedSession(queued.id))?.record.ports).toEqual(started.ports);
  });

  it('saves an extension before it answers (what a restarted service reads back: session.test.ts)', async () => {
    const m = await setup({ capacity: 1 });
    const request = standInRequest([], { lifetimeMs: 10 * 60_000, maxLifetimeMs: 60 * 60_000 });
    const created = track(await m.create(request))!;
    const before = await ready(m, created.id);
    const extended = await m.extend(created.id, 15);
    expect(extended).toMatchObject({ id: created.id });
    const endsAt = (extended as { endsAt: string }).endsAt;
    expect(Date.parse(endsAt) - Date.parse(before.endsAt ?? '')).toBe(15 * 60_000);
    // On disk already: the answer waited for it.
    expect((await savedSession(created.id))?.extendedMs).toBe(15 * 60_000);
    expect(await m.extend(created.id, 60)).toMatchObject({ latestEndAt: before.latestEndAt });
    expect(await m.extend(created.id, 1)).toEqual({
      refused: "The session already runs to its profile's maximum lifetime of 1 h; it cannot be extended.",
    });
    expect(await m.extend(crypto.randomUUID(), 1)).toBeUndefined();
  });

  it('saves the removal of an ended session, and leaves the others on disk as they were', async () => {
    const m = await setup({ capacity: 1 });
    const holder = track(await m.create(standInRequest()))!;
    const queued = await m.create(standInRequest());
    expect(await savedIds()).toEqual(new Set([holder.id, queued.id]));
    await m.end(queued.id);
    await waitFor('the ended session to leave the disk', async () => !(await savedIds()).has(queued.id));
    expect((await savedIds()).has(holder.id)).toBe(true);
  });
});
