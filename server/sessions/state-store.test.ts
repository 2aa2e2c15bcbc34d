import { mkdir, readdir, readFile, rm, rmdir, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  change,
  freshStore,
  journalLines,
  loadFrom,
  storeOver,
  tempStoreDir,
} from '../../test-support/state-store-support.ts';

describe('StateStore', () => {
  it('starts empty without a file, and reads back what it saved', async () => {
    const dir = await tempStoreDir();
    const items = new Map([['a', { id: 'a', n: 1 }]]);
    const store = storeOver(dir, items);
    expect(await store.load()).toEqual({ sessions: [], source: 'none', problems: [] });
    await change(store, items, 'b', 2);
    // The backup copy follows the main file; flush() waits for it too.
    await store.flush();
    expect((await loadFrom(dir)).sessions).toEqual([
      { id: 'a', n: 1 },
      { id: 'b', n: 2 },
    ]);
    // No temporary file is left beside it.
    expect((await readdir(dir)).sort()).toEqual([
      'sessions.json',
      'sessions.json.bak',
      'sessions.json.journal',
    ]);
  });

  it('ends at the newest state when saves overlap', async () => {
    const { items, store } = await freshStore();
    const saves = [];
    for (let i = 0; i < 20; i++) saves.push(change(store, items, 'x', i));
    await Promise.all(saves);
    await store.flush();
    expect((await store.load()).sessions).toEqual([{ id: 'x', n: 19 }]);
  });

  it('recovers from the backup when the main file is torn, and sets the torn file aside', async () => {
    const { directory, items, store } = await freshStore();
    await change(store, items, 'kept', 1);
    await store.flush();
    const text = await readFile(store.file, 'utf8');
    await writeFile(store.file, text.slice(0, 10));
    const loaded = await store.load();
    expect(loaded.sessions).toEqual([{ id: 'kept', n: 1 }]);
    expect(loaded.source).toBe('backup');
    expect(loaded.problems).toHaveLength(1);
    expect((await readdir(directory)).some((name) => name.startsWith('sessions.json.corrupt-'))).toBe(true);
  });

  it('starts empty, without throwing, when both copies are unusable', async () => {
    const dir = await tempStoreDir();
    const store = storeOver(dir);
    await writeFile(store.file, '{"version": 2, "sessions": []}');
    await writeFile(store.backup, '\u0000\u0000');
    const loaded = await store.load();
    expect(loaded).toMatchObject({ sessions: [], source: 'none' });
    expect(loaded.problems).toHaveLength(2);
  });

  it('resolves each save after a write that started after it, while other saves keep coming', async () => {
    const { directory, items, store } = await freshStore();
    let counter = 0;
    let going = true;
    // A steady stream of saves that never lets the write loop go idle.
    const stream = (async () => {
      while (going) {
        void change(store, items, 'c', ++counter);
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    for (let i = 0; i < 5; i++) {
      const asked = counter;
      await change(store, items, 'c', ++counter);
      // What is on disk was taken after the call, so it holds at least what the caller saw.
      const [onDisk] = (await loadFrom(directory)).sessions;
      expect(onDisk?.n).toBeGreaterThan(asked);
    }
    going = false;
    await stream;
    await store.flush();
    expect((await store.load()).sessions).toEqual([{ id: 'c', n: counter }]);
  });

  it('shares one write among the saves made together', async () => {
    const { items, store } = await freshStore({ idleMs: 60_000 });
    await Promise.all(Array.from({ length: 10 }, (_, i) => change(store, items, `s${i}`, i)));
    expect(await journalLines(store)).toHaveLength(1);
    await store.flush();
  });

  it('rejects the saves whose write failed, and writes again once it can', async () => {
    const { directory, items, store } = await freshStore();
    await change(store, items, 'before', 1);
    await store.flush();
    // A directory in the journal's place makes the write fail, even for root.
    const blocker = store.journal;
    await rm(blocker);
    await mkdir(blocker);
    const failed = await Promise.allSettled([
      change(store, items, 'lost', 1),
      change(store, items, 'lost', 2),
    ]);
    expect(failed.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect((await loadFrom(directory)).sessions).toEqual([{ id: 'before', n: 1 }]);
    await rmdir(blocker);
    // The changes of the failed write are not lost for the next one.
    await change(store, items, 'before');
    expect((await loadFrom(directory)).sessions).toEqual([{ id: 'lost', n: 2 }]);
    await store.flush();
  });
});
