/** The state file repository at work: what a save writes, when it resolves, and failures. */
import { mkdir, readdir, readFile, rm, rmdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  byId,
  change,
  freshStore,
  loadFrom,
  stateFile,
  storeOver,
  tempStoreDir,
} from '../../test-support/state-store-support.ts';

describe('JournalRepository', () => {
  it('starts empty without a file, and reads back what it saved from the state file', async () => {
    const dir = await tempStoreDir();
    const items = new Map([['a', { id: 'a', n: 1 }]]);
    const store = storeOver(dir, items);
    expect(await store.load()).toEqual({ sessions: [], source: 'none', problems: [] });
    await change(store, items, 'b', 2);
    expect(await loadFrom(dir)).toEqual({
      sessions: [
        { id: 'a', n: 1 },
        { id: 'b', n: 2 },
      ],
      source: 'main',
      problems: [],
    });
    // The state file is one JSON document that people and tools read, its copy the same; no temporary file is left.
    expect(await stateFile(store)).toMatchObject({ version: 1, generation: 1 });
    expect(await readFile(store.files.backup, 'utf8')).toBe(await readFile(store.files.main, 'utf8'));
    expect((await readdir(dir)).sort()).toEqual(['sessions.json', 'sessions.json.bak']);
  });

  it('ends at the newest state when saves overlap, and shares one write among saves made together', async () => {
    const { items, store } = await freshStore();
    await Promise.all(Array.from({ length: 20 }, (_, i) => change(store, items, 'x', i)));
    await Promise.all(Array.from({ length: 10 }, (_, i) => change(store, items, `s${i}`, i)));
    expect((await stateFile(store)).generation).toBe(2);
    expect((await store.load()).sessions.find((item) => item.id === 'x')).toEqual({ id: 'x', n: 19 });
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

  it('rejects the saves of a failed write, says so once, and the next write holds every change', async () => {
    const errors: string[] = [];
    const { directory, items, store } = await freshStore({
      onWriteError: (error) => errors.push(error.message),
    });
    await change(store, items, 'before', 1);
    // A directory in the state file's place makes the rename fail, even for root.
    await rm(store.files.main);
    await mkdir(store.files.main);
    items.set('noted', { id: 'noted', n: 1 });
    store.note('noted');
    const failed = await Promise.allSettled([
      change(store, items, 'lost', 1),
      change(store, items, 'lost', 2),
    ]);
    expect(failed.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(errors).toEqual([expect.stringMatching(/EISDIR/)]);
    await rmdir(store.files.main);
    await change(store, items, 'before');
    expect((await loadFrom(directory)).sessions.sort(byId)).toEqual([
      { id: 'lost', n: 2 },
      { id: 'noted', n: 1 },
    ]);
  });

  it('keeps writing after an onWriteError that throws', async () => {
    const { directory, items, store } = await freshStore({
      onWriteError: () => {
        throw new Error('the caller failed too');
      },
    });
    await mkdir(store.files.main);
    await expect(change(store, items, 'a', 1)).rejects.toThrow(/EISDIR/);
    await rmdir(store.files.main);
    await change(store, items, 'a', 2);
    expect((await loadFrom(directory)).sessions).toEqual([{ id: 'a', n: 2 }]);
  });

  it('leaves a record that the caller no longer holds out of the next write', async () => {
    const { directory, items, store } = await freshStore();
    for (let i = 0; i < 1_000; i++) items.set(`session-${i}`, { id: `session-${i}`, n: i });
    await store.save('all');
    await change(store, items, 'session-500', -1);
    await change(store, items, 'session-7');
    const loaded = (await loadFrom(directory)).sessions;
    expect(loaded).toHaveLength(999);
    expect(loaded.find((item) => item.id === 'session-500')).toEqual({ id: 'session-500', n: -1 });
    expect(loaded.some((item) => item.id === 'session-7')).toBe(false);
  });
});
