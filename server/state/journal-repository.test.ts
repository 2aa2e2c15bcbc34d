/** The journal repository at work: what a save writes, when it resolves, failures, and compaction. */
import { mkdir, readdir, readFile, rm, rmdir } from 'node:fs/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  byId,
  change,
  freshStore,
  journalLines,
  loadFrom,
  storeOver,
  tempStoreDir,
} from '../../test-support/state-store-support.ts';

afterEach(() => {
  vi.useRealTimers();
});

describe('JournalRepository', () => {
  it('starts empty without a file, and reads back what it saved', async () => {
    const dir = await tempStoreDir();
    const items = new Map([['a', { id: 'a', n: 1 }]]);
    const store = storeOver(dir, items);
    expect(await store.load()).toEqual({ sessions: [], source: 'none', problems: [] });
    await change(store, items, 'b', 2);
    expect(await loadFrom(dir)).toMatchObject({ source: 'journal', problems: [] });
    await store.flush();
    expect(await loadFrom(dir)).toEqual({
      sessions: [
        { id: 'a', n: 1 },
        { id: 'b', n: 2 },
      ],
      source: 'main',
      problems: [],
    });
    // The state file is one JSON document that people and tools read; no temporary file is left.
    expect(JSON.parse(await readFile(store.files.main, 'utf8'))).toMatchObject({ version: 1, generation: 1 });
    expect(await readFile(store.files.journal, 'utf8')).toBe('');
    expect((await readdir(dir)).sort()).toEqual([
      'sessions.json',
      'sessions.json.bak',
      'sessions.json.journal',
    ]);
  });

  it('ends at the newest state when saves overlap, and shares one write among saves made together', async () => {
    const { items, store } = await freshStore({ idleMs: 60_000 });
    await Promise.all(Array.from({ length: 20 }, (_, i) => change(store, items, 'x', i)));
    await Promise.all(Array.from({ length: 10 }, (_, i) => change(store, items, `s${i}`, i)));
    expect(await journalLines(store)).toHaveLength(2);
    expect((await store.load()).sessions.find((item) => item.id === 'x')).toEqual({ id: 'x', n: 19 });
    await store.flush();
  });

  it('resolves each save after a write that started after it, while other saves keep coming', async () => {
    const { directory, items, store } = await freshStore();
    let counter = 0;
    let going = true;
    // A steady stream of saves that never lets the writes pause.
    const stream = (async () => {
      while (going) {
        void change(store, items, 'c', ++counter);
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    for (let i = 0; i < 5; i++) {
      const asked = counter;
      await change(store, items, 'c', ++counter);
      const [onDisk] = (await loadFrom(directory)).sessions;
      expect(onDisk?.n).toBeGreaterThan(asked);
    }
    going = false;
    await stream;
    await store.flush();
    expect((await store.load()).sessions).toEqual([{ id: 'c', n: counter }]);
  });

  it('rejects the saves of a failed write, says so once, and writes every record with the next', async () => {
    const errors: string[] = [];
    const { directory, items, store } = await freshStore({
      idleMs: 60_000,
      onWriteError: (error) => errors.push(error.message),
    });
    await change(store, items, 'before', 1);
    // A directory in the journal's place makes the write fail, even for root.
    await rm(store.files.journal);
    await mkdir(store.files.journal);
    items.set('noted', { id: 'noted', n: 1 });
    store.note('noted');
    const failed = await Promise.allSettled([
      change(store, items, 'lost', 1),
      change(store, items, 'lost', 2),
    ]);
    expect(failed.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(errors).toEqual([expect.stringMatching(/EISDIR/)]);
    await rmdir(store.files.journal);
    await change(store, items, 'before');
    // The changes of the failed write are not lost for the next one, which holds every record.
    expect((await loadFrom(directory)).sessions.sort(byId)).toEqual([
      { id: 'lost', n: 2 },
      { id: 'noted', n: 1 },
    ]);
    expect(JSON.parse((await journalLines(store))[0] ?? '')).toHaveProperty('sessions');
    await store.flush();
  });

  it('keeps writing after an onWriteError that throws', async () => {
    const { directory, items, store } = await freshStore({
      idleMs: 60_000,
      onWriteError: () => {
        throw new Error('the caller failed too');
      },
    });
    await mkdir(store.files.journal);
    await expect(change(store, items, 'a', 1)).rejects.toThrow(/EISDIR/);
    await rmdir(store.files.journal);
    await change(store, items, 'a', 2);
    expect((await loadFrom(directory)).sessions).toEqual([{ id: 'a', n: 2 }]);
  });

  it('writes a line in proportion to what changed, and removes what the caller still holds', async () => {
    const { directory, items, store } = await freshStore({ idleMs: 60_000 });
    for (let i = 0; i < 1_000; i++) items.set(`session-${i}`, { id: `session-${i}`, n: i });
    await store.save('all');
    await change(store, items, 'session-500', -1);
    await store.remove('session-7');
    const [whole, put, del] = await journalLines(store);
    expect(Buffer.byteLength(whole ?? '')).toBeGreaterThan(20_000);
    expect(JSON.parse(put ?? '')).toMatchObject({
      generation: 2,
      put: [{ id: 'session-500', n: -1 }],
      del: [],
    });
    expect(JSON.parse(del ?? '')).toMatchObject({ generation: 3, put: [], del: ['session-7'] });
    expect(Buffer.byteLength(del ?? '')).toBeLessThan(150);
    const loaded = (await loadFrom(directory)).sessions;
    expect(loaded).toHaveLength(999);
    expect(loaded.find((item) => item.id === 'session-500')).toEqual({ id: 'session-500', n: -1 });
    expect(loaded.some((item) => item.id === 'session-7')).toBe(false);
    await store.flush();
  });

  it('compacts once writes pause, and at once when the journal passes its limit', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { items, store } = await freshStore({ idleMs: 200, compactBytes: 2_000 });
    await change(store, items, 'a', 1);
    expect(await journalLines(store)).toHaveLength(1);
    vi.advanceTimersByTime(199);
    await change(store, items, 'a', 2);
    // The quiet time counts from the last write.
    vi.advanceTimersByTime(199);
    await store.save([]);
    expect(await journalLines(store)).toHaveLength(3);
    vi.advanceTimersByTime(200);
    // The compaction the timer queued is behind nothing: a flush with nothing left waits for it.
    await store.flush();
    expect(await journalLines(store)).toEqual([]);
    expect(JSON.parse(await readFile(store.files.main, 'utf8'))).toMatchObject({
      sessions: [{ id: 'a', n: 2 }],
    });
    // No timer fires from here on: only the journal's size makes it compacted.
    for (let n = 0; n < 40; n++) await change(store, items, 'a', n);
    // A save answers before the compaction its write started; the next waits behind it.
    await store.save([]);
    expect((await readFile(store.files.journal)).length).toBeLessThan(2_000);
    expect(JSON.parse(await readFile(store.files.main, 'utf8')).generation).toBeGreaterThan(20);
    await store.flush();
  });
});
