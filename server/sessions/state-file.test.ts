import { mkdir, mkdtemp, readFile, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JournalAppender } from './state-file.ts';

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
