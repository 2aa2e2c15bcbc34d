import { appendFile, mkdir, readdir, readFile, rm, rmdir, writeFile } from 'node:fs/promises';
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
    // The backup copy follows the main file; flush() waits for it too.
    await store.flush();
    expect((await new StateStore<{ n: number }>(dir).load()).sessions).toEqual([{ n: 1 }, { n: 2 }]);
    // No temporary file is left beside it.
    expect((await readdir(dir)).sort()).toEqual([
      'sessions.json',
      'sessions.json.bak',
      'sessions.json.journal',
    ]);
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
    await store.flush();
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

  it('resolves each save after a write that started after it, while other saves keep coming', async () => {
    dir = await tempDataDir();
    const store = new StateStore<number>(dir);
    let counter = 0;
    let going = true;
    // A steady stream of saves that never lets the write loop go idle.
    const stream = (async () => {
      while (going) {
        void store.save(() => [++counter]);
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    for (let i = 0; i < 5; i++) {
      const asked = counter;
      await store.save(() => [++counter]);
      // What is on disk was taken after the call, so it holds at least what the caller saw.
      const [onDisk] = (await new StateStore<number>(dir).load()).sessions;
      expect(onDisk).toBeGreaterThan(asked);
    }
    going = false;
    await stream;
    await store.flush();
    expect((await store.load()).sessions).toEqual([counter]);
  });

  it('shares one write among the saves made together', async () => {
    dir = await tempDataDir();
    const store = new StateStore<number>(dir);
    let snapshots = 0;
    const first = store.save(() => [snapshots++]);
    const rest = Array.from({ length: 10 }, () => store.save(() => [snapshots++]));
    await Promise.all([first, ...rest]);
    expect(snapshots).toBe(1);
    await store.flush();
  });

  it('rejects the saves whose write failed, and writes again once it can', async () => {
    dir = await tempDataDir();
    const store = new StateStore<string>(dir);
    await store.save(() => ['before']);
    await store.flush();
    // A directory in the journal's place makes the write fail, even for root.
    const blocker = store.journal;
    await rm(blocker);
    await mkdir(blocker);
    const failed = await Promise.allSettled([store.save(() => ['lost']), store.save(() => ['lost'])]);
    expect(failed.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect((await new StateStore<string>(dir).load()).sessions).toEqual(['before']);
    await rmdir(blocker);
    await store.save(() => ['after']);
    expect((await new StateStore<string>(dir).load()).sessions).toEqual(['after']);
    await store.flush();
  });

  it('reads the newest state back from the journal after a crash, past a torn last line', async () => {
    dir = await tempDataDir();
    const store = new StateStore<string>(dir, 'sessions.json', { idleMs: 60_000 });
    await store.save(() => ['first']);
    await store.flush();
    await store.save(() => ['second']);
    // As a crash leaves it: the state file one write behind, half a line at the journal's end.
    await appendFile(store.journal, '{"version":1,"generation":99,"sess');
    const loaded = await new StateStore<string>(dir).load();
    expect(loaded).toMatchObject({ sessions: ['second'], source: 'journal', problems: [] });
    expect(JSON.parse(await readFile(store.file, 'utf8'))).toMatchObject({ sessions: ['first'] });
    // The next write after the torn line is whole, and newer than anything before it.
    const next = new StateStore<string>(dir);
    await next.load();
    await next.save(() => ['third']);
    expect((await new StateStore<string>(dir).load()).sessions).toEqual(['third']);
    await next.flush();
  });

  it('keeps saving after flushes and idle folds that find nothing to do', async () => {
    dir = await tempDataDir();
    const store = new StateStore<number>(dir, 'sessions.json', { idleMs: 1 });
    await store.flush();
    await store.save(() => [1]);
    await store.flush();
    await store.flush();
    await store.save(() => [2]);
    // Lets the idle fold run; nothing is measured.
    await new Promise((resolve) => setTimeout(resolve, 20));
    await store.flush();
    await store.save(() => [3]);
    await store.flush();
    expect(await store.load()).toMatchObject({ sessions: [3], source: 'main' });
  });
});
