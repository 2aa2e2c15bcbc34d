/** What the journal repository reads back after a crash, a torn write or a file damaged from outside. */
import { appendFile, readdir, readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  byId,
  change,
  freshStore,
  journalLines,
  loadFrom,
  storeOver,
  tempStoreDir,
  wholeLine,
} from '../../test-support/state-store-support.ts';

describe('JournalRepository after a crash', () => {
  it('reads the newest state back from the journal, past a torn last line, and writes whole next', async () => {
    const { directory, items, store } = await freshStore({ idleMs: 60_000 });
    await change(store, items, 'first', 1);
    await store.flush();
    await change(store, items, 'second', 2);
    await change(store, items, 'first');
    // As a crash leaves it: the state file behind the journal, half a line at the journal's end.
    await appendFile(store.files.journal, '\n{"version":1,"generation":99,"pu');
    expect(await loadFrom(directory)).toEqual({
      sessions: [{ id: 'second', n: 2 }],
      source: 'journal',
      problems: [],
    });
    const restarted = new Map([['third', { id: 'third', n: 3 }]]);
    const next = storeOver(directory, restarted, { idleMs: 60_000 });
    await next.load();
    await next.save('third');
    // The line after a load holds every record, with a generation past every line that could be read.
    expect(JSON.parse((await journalLines(next)).at(-1) ?? '')).toMatchObject({
      generation: 4,
      sessions: [{ id: 'third', n: 3 }],
    });
    expect((await loadFrom(directory)).sessions).toEqual([{ id: 'third', n: 3 }]);
    await next.flush();
  });

  it('passes over old lines left by a crash between replacing the state file and emptying the journal', async () => {
    const { directory, items, store } = await freshStore({ idleMs: 60_000 });
    await change(store, items, 'a', 1);
    await change(store, items, 'b', 1);
    const oldLines = await readFile(store.files.journal, 'utf8');
    await change(store, items, 'a');
    await store.flush();
    await change(store, items, 'c', 1);
    await writeFile(store.files.journal, oldLines + (await readFile(store.files.journal, 'utf8')));
    const loaded = await loadFrom(directory);
    expect(loaded).toMatchObject({ source: 'journal', problems: [] });
    expect(loaded.sessions.sort(byId)).toEqual([
      { id: 'b', n: 1 },
      { id: 'c', n: 1 },
    ]);
  });

  it('reports a damaged line in the middle of the journal and applies the lines after it', async () => {
    const { directory, items, store } = await freshStore({ idleMs: 60_000 });
    await change(store, items, 'a', 1);
    await change(store, items, 'b', 1);
    await change(store, items, 'c', 1);
    const [first, second, third] = await journalLines(store);
    await writeFile(store.files.journal, `\n${first}\n${second?.slice(0, 20)}\n${third}`);
    const loaded = await loadFrom(directory);
    expect(loaded.problems).toEqual([expect.stringMatching(/sessions\.json\.journal: line 3 is damaged$/)]);
    expect(loaded.sessions.sort(byId)).toEqual([
      { id: 'a', n: 1 },
      { id: 'c', n: 1 },
    ]);
  });

  it('recovers from the copy when the state file is torn, and sets the torn file aside', async () => {
    const { directory, items, store } = await freshStore();
    await change(store, items, 'kept', 1);
    await store.flush();
    const text = await readFile(store.files.main, 'utf8');
    await writeFile(store.files.main, text.slice(0, 10));
    const loaded = await store.load();
    expect(loaded).toMatchObject({ sessions: [{ id: 'kept', n: 1 }], source: 'backup' });
    expect(loaded.problems).toEqual([expect.stringMatching(/sessions\.json: not a session state file/)]);
    expect((await readdir(directory)).some((name) => name.startsWith('sessions.json.corrupt-'))).toBe(true);
  });

  it('takes the copy when it is newer than the state file, and the state file on a tie', async () => {
    const dir = await tempStoreDir();
    const store = storeOver(dir);
    await writeFile(store.files.main, wholeLine(3, [{ id: 'main', n: 1 }]));
    await writeFile(store.files.backup, wholeLine(4, [{ id: 'backup', n: 1 }]));
    expect(await store.load()).toMatchObject({ sessions: [{ id: 'backup', n: 1 }], source: 'backup' });
    await writeFile(store.files.backup, wholeLine(3, [{ id: 'backup', n: 1 }]));
    expect(await store.load()).toMatchObject({ sessions: [{ id: 'main', n: 1 }], source: 'main' });
  });

  it('starts empty, without throwing, when both copies are unusable', async () => {
    const dir = await tempStoreDir();
    const store = storeOver(dir);
    await writeFile(store.files.main, '{"version": 2, "sessions": []}');
    await writeFile(store.files.backup, '\u0000\u0000');
    const loaded = await store.load();
    expect(loaded).toMatchObject({ sessions: [], source: 'none' });
    expect(loaded.problems).toHaveLength(2);
  });

  it('passes over a record without an id, saying so, and keeps the others', async () => {
    const dir = await tempStoreDir();
    const store = storeOver(dir);
    await writeFile(store.files.main, wholeLine(1, [null, { id: 'a', n: 1 }]));
    expect(await store.load()).toEqual({
      sessions: [{ id: 'a', n: 1 }],
      source: 'main',
      problems: [expect.stringMatching(/a record without an id is passed over/)],
    });
  });

  it('reads the files of the earlier layout: a state file without a generation, lines ended by a newline', async () => {
    const dir = await tempStoreDir();
    const store = storeOver(dir);
    const delta = JSON.stringify({
      version: 1,
      generation: 3,
      savedAt: '',
      put: [{ id: 'c', n: 3 }],
      del: ['a'],
    });
    await writeFile(store.files.main, wholeLine(undefined, [{ id: 'a', n: 1 }]));
    await writeFile(
      store.files.journal,
      `${wholeLine(2, [
        { id: 'a', n: 1 },
        { id: 'b', n: 2 },
      ])}\n${delta}\n`,
    );
    expect(await store.load()).toEqual({
      sessions: [
        { id: 'b', n: 2 },
        { id: 'c', n: 3 },
      ],
      source: 'journal',
      problems: [],
    });
  });

  it('reproduces the exact state after many interleaved changes, across compactions', async () => {
    const { directory, items, store } = await freshStore({ compactBytes: 2_000, idleMs: 60_000 });
    let seed = 7;
    const random = (below: number) => (seed = (seed * 48_271) % 2_147_483_647) % below;
    const compactions = new Set<number>();
    for (let round = 0; round < 60; round++) {
      // Several changes per round, saved together (they share one write) or one after another.
      const count = 1 + random(5);
      const together = random(2) === 0;
      const saves = [];
      for (let i = 0; i < count; i++) {
        const id = `s${random(40)}`;
        const saved =
          random(4) === 0 ? (items.delete(id), store.remove(id)) : change(store, items, id, random(1_000));
        saves.push(together ? saved : await saved);
      }
      await Promise.all(saves);
      const text = await readFile(store.files.main, 'utf8').catch(() => undefined);
      if (text) compactions.add((JSON.parse(text) as { generation: number }).generation);
    }
    expect(compactions.size).toBeGreaterThan(2);
    expect((await journalLines(store)).length).toBeGreaterThan(0);
    const loaded = await loadFrom(directory);
    expect(loaded.problems).toEqual([]);
    expect(loaded.sessions.sort(byId)).toEqual([...items.values()].sort(byId));
    await store.flush();
    expect((await loadFrom(directory)).sessions.sort(byId)).toEqual([...items.values()].sort(byId));
  });
});
