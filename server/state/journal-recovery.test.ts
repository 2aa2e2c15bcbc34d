/**
 * What the repository reads back after a crash, a file damaged from outside, or from the files of the earlier
 * layout: a journal of lines beside the state file, written by hand here as that version left them.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  byId,
  change,
  deltaLine,
  freshStore,
  loadFrom,
  stateFile,
  storeOver,
  tempStoreDir,
  wholeLine,
} from '../../test-support/state-store-support.ts';

describe('JournalRepository after a crash, and over the earlier layout', () => {
  it('reads the newest state back from a journal, past a torn last line, and folds it into the state file', async () => {
    const dir = await tempStoreDir();
    const store = storeOver(dir);
    await writeFile(store.files.main, wholeLine(1, [{ id: 'first', n: 1 }]));
    // As a crash left it: the state file behind the journal, half a line at the journal's end.
    const lines = [deltaLine(2, [{ id: 'second', n: 2 }], []), deltaLine(3, [], ['first'])];
    await writeFile(store.files.journal, `\n${lines.join('\n')}\n{"version":1,"generation":99,"pu`);
    expect(await loadFrom(dir)).toEqual({
      sessions: [{ id: 'second', n: 2 }],
      source: 'journal',
      problems: [],
    });
    const restarted = new Map([['third', { id: 'third', n: 3 }]]);
    const next = storeOver(dir, restarted);
    await next.load();
    await next.save('third');
    // The first write holds every record, with a generation past every line that could be read.
    expect(await stateFile(next)).toMatchObject({ generation: 4, sessions: [{ id: 'third', n: 3 }] });
    expect((await readdir(dir)).sort()).toEqual(['sessions.json', 'sessions.json.bak']);
    expect(await loadFrom(dir)).toEqual({ sessions: [{ id: 'third', n: 3 }], source: 'main', problems: [] });
  });

  it('passes over old lines left by a crash between replacing the state file and emptying the journal', async () => {
    const dir = await tempStoreDir();
    const store = storeOver(dir);
    await writeFile(store.files.main, wholeLine(3, [{ id: 'b', n: 1 }]));
    const old = [deltaLine(1, [{ id: 'a', n: 1 }], []), deltaLine(2, [{ id: 'b', n: 1 }], [])];
    await writeFile(store.files.journal, `\n${[...old, deltaLine(4, [{ id: 'c', n: 1 }], [])].join('\n')}`);
    const loaded = await loadFrom(dir);
    expect(loaded).toMatchObject({ source: 'journal', problems: [] });
    expect(loaded.sessions.sort(byId)).toEqual([
      { id: 'b', n: 1 },
      { id: 'c', n: 1 },
    ]);
  });

  it('reports a damaged line in the middle of a journal and applies the lines after it', async () => {
    const dir = await tempStoreDir();
    const store = storeOver(dir);
    const [first, second, third] = ['a', 'b', 'c'].map((id, i) => deltaLine(i + 1, [{ id, n: 1 }], []));
    await writeFile(store.files.journal, `\n${first}\n${second?.slice(0, 20)}\n${third}`);
    const loaded = await loadFrom(dir);
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

  it('reproduces the exact state after many interleaved changes', async () => {
    const { directory, items, store } = await freshStore();
    let seed = 7;
    const random = (below: number) => (seed = (seed * 48_271) % 2_147_483_647) % below;
    for (let round = 0; round < 60; round++) {
      // Several changes per round, saved together (they share one write) or one after another.
      const count = 1 + random(5);
      const together = random(2) === 0;
      const saves = [];
      for (let i = 0; i < count; i++) {
        const id = `s${random(40)}`;
        const saved = change(store, items, id, random(4) === 0 ? undefined : random(1_000));
        saves.push(together ? saved : await saved);
      }
      await Promise.all(saves);
      const loaded = await loadFrom(directory);
      expect(loaded.problems).toEqual([]);
      expect(loaded.sessions.sort(byId)).toEqual([...items.values()].sort(byId));
    }
  });
});
