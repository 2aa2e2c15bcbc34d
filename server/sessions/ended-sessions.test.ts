/**
 * The past sessions kept on disk (ended-sessions.ts), on a clock the test sets. The manager's keeping of them,
 * with real applications, is ended-sessions.process.test.ts's.
 */
import { readFile, rm, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EndedSessions } from './ended-sessions.ts';
import type { EndedSession } from './types.ts';

const DAY = 24 * 3_600_000;

function ended(n: number, endedAt: number, owner = 'alice'): EndedSession {
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    owner,
    appId: 'usd-viewer',
    version: '1.2.0',
    profileId: 'default',
    createdAt: new Date(endedAt - 60_000).toISOString(),
    endedAt: new Date(endedAt).toISOString(),
    cause: 'deleted',
    reason: `Ended by ${owner}`,
    endedBy: owner,
  };
}

describe('the store of ended sessions', () => {
  let dir: string;
  let clock: number;
  const now = () => clock;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'streamgate-ended-'));
    clock = Date.parse('2025-03-01T09:00:00Z');
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('lists newest first, by owner or all, a page at a time', () => {
    const store = new EndedSessions(dir, { now });
    store.add(ended(1, clock - 3_000));
    store.add(ended(2, clock - 2_000, 'bob'));
    store.add(ended(3, clock - 1_000));
    expect(store.list(null, 0, 10).items.map((e) => e.id.slice(-1))).toEqual(['3', '2', '1']);
    expect(store.list('alice', 0, 10)).toMatchObject({
      count: 2,
      items: [{ owner: 'alice' }, { owner: 'alice' }],
    });
    expect(store.list(null, 1, 1)).toMatchObject({ count: 3, items: [{ id: ended(2, 0).id }] });
  });

  it('keeps them across restarts, and forgets those past the retention and beyond the limit', async () => {
    const first = new EndedSessions(dir, { now, limit: 3 });
    await first.load();
    first.add(ended(1, clock - 31 * DAY));
    first.add(ended(2, clock - 29 * DAY));
    first.add(ended(3, clock - 2 * DAY));
    first.add(ended(4, clock - DAY));
    await first.flush();
    // A line torn by a crash, and one that is no ended session, are passed over.
    await writeFile(first.file, '{"id":"x"}\n{"id":', { flag: 'a' });
    const second = new EndedSessions(dir, { now, limit: 3 });
    await second.load();
    expect(second.list(null, 0, 10).items.map((e) => e.id.slice(-1))).toEqual(['4', '3', '2']);
    // A day later the oldest is past 30 days.
    clock += 2 * DAY;
    expect(second.list(null, 0, 10).items.map((e) => e.id.slice(-1))).toEqual(['4', '3']);
    // The file was rewritten at the load with what is kept.
    await second.flush();
    const lines = (await readFile(second.file, 'utf8')).split('\n').filter(Boolean);
    expect(lines.map((line) => (JSON.parse(line) as EndedSession).id.slice(-1))).toEqual(['2', '3', '4']);
  });
});
