import { readdir, readFile, writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { StateStore } from './state-store.ts';
import { removeDir, tempDataDir } from './test-support.ts';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await removeDir(dir);
  dir = undefined;
});

describe('StateStore', () => {
  it('starts empty without a file, and reads back what it saved', async () => {
    dir = await tempDataDir();
    const store = new StateStore<{ n: number }>(dir);
    expect(await store.load()).toEqual({ sessions: [], source: 'none', problems: [] });
    await store.save(() => [{ n: 1 }, { n: 2 }]);
    expect((await new StateStore<{ n: number }>(dir).load()).sessions).toEqual([{ n: 1 }, { n: 2 }]);
    // No temporary file is left beside it.
    expect((await readdir(dir)).sort()).toEqual(['sessions.json', 'sessions.json.bak']);
  });

  it('ends at the newest snapshot when saves overlap', async () => {
    dir = await tempDataDir();
    const store = new StateStore<number>(dir);
    let value = 0;
    const saves = [];
    for (let i = 0; i < 20; i++) {
      value = i;
      saves.push(store.save(() => [value]));
    }
    await Promise.all(saves);
    await store.flush();
    expect((await store.load()).sessions).toEqual([19]);
  });

  it('recovers from the backup when the main file is torn, and sets the torn file aside', async () => {
    dir = await tempDataDir();
    const store = new StateStore<string>(dir);
    await store.save(() => ['kept']);
    const text = await readFile(store.file, 'utf8');
    await writeFile(store.file, text.slice(0, 10));
    const loaded = await store.load();
    expect(loaded.sessions).toEqual(['kept']);
    expect(loaded.source).toBe('backup');
    expect(loaded.problems).toHaveLength(1);
    expect((await readdir(dir)).some((name) => name.startsWith('sessions.json.corrupt-'))).toBe(true);
  });

  it('starts empty, without throwing, when both copies are unusable', async () => {
    dir = await tempDataDir();
    const store = new StateStore<string>(dir);
    await writeFile(store.file, '{"version": 2, "sessions": []}');
    await writeFile(store.backup, '\u0000\u0000');
    const loaded = await store.load();
    expect(loaded).toMatchObject({ sessions: [], source: 'none' });
    expect(loaded.problems).toHaveLength(2);
  });
});
