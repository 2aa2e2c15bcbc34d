import { mkdir, mkdtemp, readFile, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { itemsById, JournalAppender, replayJournal } from './state-file.ts';

let dir: string;
let journal: string;
let appender: JournalAppender;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'streamgate-journal-'));
  journal = path.join(dir, 'sessions.json.journal');
  appender = new JournalAppender(journal);
});

afterEach(async () => {
  await appender.close();
  await rm(dir, { recursive: true, force: true });
});

describe('journal appender', () => {
  it('appends each line after the ones before it, across a close', async () => {
    await appender.append('one\n', true);
    await appender.append('two\n', false);
    await appender.close();
    await appender.append('three\n', false);
    expect(await readFile(journal, 'utf8')).toBe('one\ntwo\nthree\n');
  });

  it('takes up a journal removed from outside while it was open, rather than write to the lost file', async () => {
    await appender.append('old\n', true);
    await rm(journal);
    await appender.append('new\n', false);
    expect(await readFile(journal, 'utf8')).toBe('new\n');
  });

  it('takes up a journal replaced from outside while it was open', async () => {
    await appender.append('old\n', true);
    const replacement = `${journal}.other`;
    await writeFile(replacement, 'replaced\n');
    await rename(replacement, journal);
    await appender.append('next\n', false);
    expect(await readFile(journal, 'utf8')).toBe('replaced\nnext\n');
  });

  it('fails when the journal cannot be written any more, and works again once it can', async () => {
    await appender.append('first\n', true);
    await rm(journal);
    await mkdir(journal);
    await expect(appender.append('lost\n', false)).rejects.toThrow();
    await rmdir(journal);
    await appender.append('after\n', false);
    expect(await readFile(journal, 'utf8')).toBe('after\n');
  });
});

describe('journal replay', () => {
  interface Item {
    id: string;
    n: number;
  }
  const key = (item: Item) => item.id;
  const at = (generation: number, ...items: Item[]) => ({ items: itemsById(items, key), generation });
  const whole = (generation: number, ...sessions: Item[]) =>
    JSON.stringify({ version: 1, generation, savedAt: '', sessions });
  const delta = (generation: number, put: Item[], del: string[] = []) =>
    JSON.stringify({ version: 1, generation, savedAt: '', put, del });
  const journal = (...lines: string[]) => lines.map((line) => `${line}\n`).join('');
  const a1 = { id: 'a', n: 1 };
  const b1 = { id: 'b', n: 1 };
  const b2 = { id: 'b', n: 2 };

  it('applies deltas in order on the state, puts and removals by id', () => {
    const state = at(4, a1, b1);
    const replay = replayJournal(state, journal(delta(5, [b2]), delta(6, [{ id: 'c', n: 1 }], ['a'])), key);
    expect(replay).toEqual({ applied: 2, newest: 6, problems: [] });
    expect(state.generation).toBe(6);
    expect([...state.items.values()]).toEqual([b2, { id: 'c', n: 1 }]);
  });

  it('passes over lines the state already holds, and a torn last line', () => {
    const state = at(5, a1);
    const text =
      journal(whole(3, b1), delta(4, [b2]), delta(5, [], ['a']), delta(6, [b2])) + '{"version":1,"gen';
    expect(replayJournal(state, text, key)).toEqual({ applied: 1, newest: 6, problems: [] });
    expect([...state.items.values()]).toEqual([a1, b2]);
  });

  it('stops at a damaged middle line until a whole state, and reports it', () => {
    const state = at(0);
    const text = journal(
      whole(1, a1),
      delta(2, [b1]),
      '{"version":1,"ge',
      delta(3, [b2]),
      delta(4, [], ['a']),
    );
    const replay = replayJournal(state, text, key);
    expect(replay.problems).toEqual([expect.stringMatching(/^line 3 is damaged/)]);
    expect([...state.items.values()]).toEqual([a1, b1]);
    expect(state.generation).toBe(2);
    // A whole state after the damage is a new start.
    const healed = at(0);
    replayJournal(healed, text + journal(whole(5, b2), delta(6, [a1])), key);
    expect([...healed.items.values()]).toEqual([b2, a1]);
    expect(healed.generation).toBe(6);
  });

  it('applies no delta that does not follow the state', () => {
    const state = at(2, a1);
    const replay = replayJournal(state, journal(delta(4, [b1]), delta(5, [], ['a'])), key);
    expect(replay).toMatchObject({ applied: 0, newest: 5 });
    expect(replay.problems).toHaveLength(1);
    expect([...state.items.values()]).toEqual([a1]);
  });

  it('keeps a malformed item for the caller to judge, rather than throw', () => {
    const state = at(0);
    const replay = replayJournal(state, journal(whole(1, a1, null as unknown as Item), delta(2, [b1])), key);
    expect(replay).toEqual({ applied: 2, newest: 2, problems: [] });
    expect([...state.items.values()]).toEqual([a1, null, b1]);
  });
});
