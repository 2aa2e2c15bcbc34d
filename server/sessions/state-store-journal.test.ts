/** The state store's journal: what a line holds, how it is read back after a crash, and its folds. */
import { appendFile, mkdir, readFile, rm, rmdir, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  byId,
  change,
  freshStore,
  journalLines,
  loadFrom,
  storeOver,
  tempStoreDir,
  type Item,
} from '../../test-support/state-store-support.ts';

describe('StateStore journal', () => {
  it('writes noted changes with the next line, and tells of a failed write once', async () => {
    const errors: string[] = [];
    const { directory, items, store } = await freshStore({
      idleMs: 60_000,
      onWriteError: (error) => errors.push(error.message),
    });
    items.set('noted', { id: 'noted', n: 1 });
    store.note('noted');
    // A save made after the note shares its line, or follows it: either way both are on disk.
    await change(store, items, 'saved', 2);
    expect((await loadFrom(directory)).sessions.sort(byId)).toEqual([
      { id: 'noted', n: 1 },
      { id: 'saved', n: 2 },
    ]);
    await rm(store.journal);
    await mkdir(store.journal);
    items.set('noted', { id: 'noted', n: 3 });
    store.note('noted');
    await expect(change(store, items, 'saved', 4)).rejects.toThrow();
    // One write failed, however many changes it held: one report, and no retry loop.
    expect(errors).toHaveLength(1);
    await rmdir(store.journal);
    store.note([]);
    await store.flush();
    expect((await loadFrom(directory)).sessions.sort(byId)).toEqual([
      { id: 'noted', n: 3 },
      { id: 'saved', n: 4 },
    ]);
  });

  it('reads the newest state back from the journal after a crash, past a torn last line', async () => {
    const { directory, items, store } = await freshStore({ idleMs: 60_000 });
    await change(store, items, 'first', 1);
    await store.flush();
    await change(store, items, 'second', 2);
    await change(store, items, 'first');
    // As a crash leaves it: the state file behind the journal, half a line at the journal's end.
    await appendFile(store.journal, '{"version":1,"generation":99,"pu');
    const loaded = await loadFrom(directory);
    expect(loaded).toMatchObject({ sessions: [{ id: 'second', n: 2 }], source: 'journal', problems: [] });
    expect(JSON.parse(await readFile(store.file, 'utf8'))).toMatchObject({
      sessions: [{ id: 'first', n: 1 }],
    });
    // The next write after the torn line is whole, and newer than anything before it.
    const restarted = new Map([['third', { id: 'third', n: 3 }]]);
    const next = storeOver(directory, restarted);
    await next.load();
    await next.save('third');
    expect((await loadFrom(directory)).sessions).toEqual([{ id: 'third', n: 3 }]);
    await next.flush();
  });

  it('keeps saving after flushes and idle folds that find nothing to do', async () => {
    const { items, store } = await freshStore({ idleMs: 1 });
    await store.flush();
    await change(store, items, 'a', 1);
    await store.flush();
    await store.flush();
    await change(store, items, 'a', 2);
    // Lets the idle fold run; nothing is measured.
    await new Promise((resolve) => setTimeout(resolve, 20));
    await store.flush();
    await change(store, items, 'a', 3);
    await store.flush();
    expect(await store.load()).toMatchObject({ sessions: [{ id: 'a', n: 3 }], source: 'main' });
  });

  it('writes a line in proportion to what changed, not to the whole state', async () => {
    const { directory, items, store } = await freshStore({ idleMs: 60_000 });
    for (let i = 0; i < 1_000; i++) items.set(`session-${i}`, { id: `session-${i}`, n: i });
    await store.saveAll();
    await change(store, items, 'session-500', -1);
    await change(store, items, 'session-7');
    const lines = await journalLines(store);
    expect(lines).toHaveLength(3);
    const [whole, put, del] = lines as [string, string, string];
    expect(Buffer.byteLength(whole)).toBeGreaterThan(20_000);
    expect(Buffer.byteLength(put)).toBeLessThan(150);
    expect(Buffer.byteLength(del)).toBeLessThan(150);
    expect(JSON.parse(put)).toMatchObject({ generation: 2, put: [{ id: 'session-500', n: -1 }], del: [] });
    expect(JSON.parse(del)).toMatchObject({ generation: 3, put: [], del: ['session-7'] });
    expect((await loadFrom(directory)).sessions).toEqual([...items.values()]);
    await store.flush();
  });

  it('reproduces the exact state after many interleaved changes, across folds of the journal', async () => {
    // A small journal limit, so that it is folded into the state file several times on the way.
    const { directory, items, store } = await freshStore({ compactBytes: 2_000, idleMs: 60_000 });
    let seed = 7;
    const random = (below: number) => (seed = (seed * 48_271) % 2_147_483_647) % below;
    const folds = new Set<number>();
    for (let round = 0; round < 60; round++) {
      // Several changes per round, saved together (they share one write) or one after another.
      const count = 1 + random(5);
      const together = random(2) === 0;
      const saves = [];
      for (let i = 0; i < count; i++) {
        const saved = change(store, items, `s${random(40)}`, random(3) === 0 ? undefined : random(1_000));
        saves.push(together ? saved : await saved);
      }
      await Promise.all(saves);
      const text = await readFile(store.file, 'utf8').catch(() => undefined);
      if (text) folds.add((JSON.parse(text) as { generation: number }).generation);
    }
    expect(folds.size).toBeGreaterThan(2);
    expect((await journalLines(store)).length).toBeGreaterThan(0);
    const loaded = await loadFrom(directory);
    expect(loaded.problems).toEqual([]);
    expect(loaded.sessions.sort(byId)).toEqual([...items.values()].sort(byId));
    await store.flush();
    expect((await loadFrom(directory)).sessions.sort(byId)).toEqual([...items.values()].sort(byId));
  });

  it('passes over old lines left by a crash between writing the state file and emptying the journal', async () => {
    const { directory, items, store } = await freshStore({ idleMs: 60_000 });
    await change(store, items, 'a', 1);
    await change(store, items, 'b', 1);
    const oldLines = await readFile(store.journal, 'utf8');
    await change(store, items, 'a');
    await store.flush();
    await change(store, items, 'c', 1);
    // The journal as if its truncation never reached the disk: old lines, then the new one.
    await writeFile(store.journal, oldLines + (await readFile(store.journal, 'utf8')));
    const loaded = await loadFrom(directory);
    expect(loaded).toMatchObject({ source: 'journal', problems: [] });
    expect(loaded.sessions.sort(byId)).toEqual([
      { id: 'b', n: 1 },
      { id: 'c', n: 1 },
    ]);
    await store.flush();
  });

  it('reports a gap in the generations and applies no change past it until a whole state', async () => {
    const { directory, items, store } = await freshStore({ idleMs: 60_000 });
    await change(store, items, 'a', 1);
    await change(store, items, 'b', 1);
    await change(store, items, 'c', 1);
    const [first, , third] = await journalLines(store);
    await writeFile(store.journal, `${first}\n${third}\n`);
    const loaded = await loadFrom(directory);
    expect(loaded.sessions).toEqual([{ id: 'a', n: 1 }]);
    expect(loaded.problems).toEqual([
      expect.stringMatching(/\(generation 3\) does not follow generation 1;/),
    ]);
    // A restarted store writes the whole state first, which heals the journal.
    const restarted = storeOver(directory, items);
    await restarted.load();
    await restarted.save('c');
    expect((await loadFrom(directory)).sessions.sort(byId)).toEqual([...items.values()].sort(byId));
    await restarted.flush();
    await store.flush();
  });

  it('loads a journal of whole states, as the earlier layout wrote it', async () => {
    const dir = await tempStoreDir();
    const line = (generation: number, sessions: Item[]) =>
      `${JSON.stringify({ version: 1, generation, savedAt: new Date().toISOString(), sessions })}\n`;
    const store = storeOver(dir);
    await writeFile(store.file, line(1, [{ id: 'a', n: 1 }]));
    await writeFile(store.journal, line(1, [{ id: 'a', n: 1 }]) + line(2, [{ id: 'b', n: 2 }]));
    expect(await store.load()).toEqual({ sessions: [{ id: 'b', n: 2 }], source: 'journal', problems: [] });
  });
});
