import { readFile, rm, stat, mkdtemp, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from './audit-log.ts';
import { acceptsCsv, auditCsv } from './audit-csv.ts';
import { MAX_DETAIL_CHARS } from './audit-line.ts';

const SESSION = '0b7f3c1e-5d2a-4c3b-9a8e-1f2e3d4c5b6a';
let dir: string;
/** The injected clock: a minute later at each line. */
let clock: number;
const now = () => new Date((clock += 60_000));

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'streamgate-audit-'));
  clock = Date.parse('2025-03-01T09:00:00Z');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function linesOf(file: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('the audit log', () => {
  it('appends one JSON line per event, private to the service, all written by close()', async () => {
    const log = new AuditLog(dir, { now });
    for (let i = 0; i < 200; i++)
      log.record({ user: 'alice', action: 'launch', session: SESSION, detail: { i } });
    log.record({ user: 'bob', action: 'sign-in-failed' });
    await log.close();
    const lines = await linesOf(path.join(dir, 'audit.jsonl'));
    expect(lines).toHaveLength(201);
    expect(lines[0]).toEqual({
      time: '2025-03-01T09:01:00.000Z',
      user: 'alice',
      action: 'launch',
      session: SESSION,
      detail: { i: 0 },
    });
    expect(lines[200]).toMatchObject({ user: 'bob', action: 'sign-in-failed', session: null, detail: {} });
    expect((await stat(path.join(dir, 'audit.jsonl'))).mode & 0o777).toBe(0o600);
  });

  it('closes a file an older hand left open to all', async () => {
    const file = path.join(dir, 'audit.jsonl');
    await writeFile(file, '');
    await chmod(file, 0o644);
    const log = new AuditLog(dir, { now });
    log.record({ user: 'alice', action: 'end' });
    await log.close();
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('never writes a secret: secret-named facts are dropped, token-like values redacted, long ones cut', async () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzY29wZSI6IndhdGNoIn0.c2lnbmF0dXJlLXNpZ25hdHVyZQ';
    const log = new AuditLog(dir, { now });
    log.record({
      user: 'alice',
      action: 'ticket',
      session: 'not-a-session-id',
      detail: {
        scope: 'watch',
        ticket: jwt,
        access_token: 'abc',
        Authorization: 'Bearer abc',
        refresh_token: 'def',
        client_secret: 'ghi',
        note: jwt,
        header: 'Bearer sk-123456',
        long: 'x'.repeat(5_000),
        nested: { a: 1 } as unknown as string,
      },
    });
    await log.close();
    const text = await readFile(path.join(dir, 'audit.jsonl'), 'utf8');
    for (const secret of [jwt, 'abc', 'def', 'ghi', 'sk-123456']) expect(text).not.toContain(secret);
    const [line] = await linesOf(path.join(dir, 'audit.jsonl'));
    expect(line?.session).toBeNull();
    const detail = line?.detail as Record<string, string>;
    expect(Object.keys(detail).sort()).toEqual(['header', 'long', 'note', 'scope']);
    expect(detail.scope).toBe('watch');
    expect(detail.note).toBe('[redacted]');
    expect(detail.header).toBe('[redacted]');
    expect(detail.long).toHaveLength(MAX_DETAIL_CHARS);
  });

  it('rotates by size, keeping a few older files, and reads across them newest first', async () => {
    // About 120 bytes a line: three lines a file.
    const log = new AuditLog(dir, { now, maxBytes: 400, keep: 2 });
    for (let i = 0; i < 12; i++) log.record({ user: 'alice', action: 'launch', detail: { i } });
    await log.flush();
    const [current, first, second, third] = await Promise.all(
      ['', '.1', '.2', '.3'].map((suffix) => linesOf(path.join(dir, `audit.jsonl${suffix}`))),
    );
    expect(current?.map((l) => (l.detail as { i: number }).i)).toEqual([9, 10, 11]);
    expect(first?.map((l) => (l.detail as { i: number }).i)).toEqual([6, 7, 8]);
    expect(second?.map((l) => (l.detail as { i: number }).i)).toEqual([3, 4, 5]);
    // Older than what is kept: gone.
    expect(third).toEqual([]);
    for (const suffix of ['', '.1', '.2']) {
      expect((await stat(path.join(dir, `audit.jsonl${suffix}`))).size).toBeLessThanOrEqual(400);
    }
    const page = await log.read({ limit: 100 });
    expect(page.items.map((l) => (l.detail as { i: number }).i)).toEqual([11, 10, 9, 8, 7, 6, 5, 4, 3]);
    expect(page.truncated).toBe(false);
  });

  it('filters by person, action and time, and says when the limit cut older matches off', async () => {
    const log = new AuditLog(dir, { now });
    log.record({ user: 'alice', action: 'launch', session: SESSION }); // 09:01
    log.record({ user: 'bob', action: 'launch' }); // 09:02
    log.record({ user: 'alice', action: 'ticket', detail: { scope: 'control' } }); // 09:03
    log.record({ user: 'alice', action: 'end', session: SESSION }); // 09:04
    const actions = async (query: Parameters<AuditLog['read']>[0]) =>
      (await log.read(query)).items.map((l) => `${l.user} ${l.action}`);
    expect(await actions({ limit: 10 })).toEqual(['alice end', 'alice ticket', 'bob launch', 'alice launch']);
    expect(await actions({ limit: 10, user: 'alice' })).toEqual([
      'alice end',
      'alice ticket',
      'alice launch',
    ]);
    expect(await actions({ limit: 10, action: 'launch' })).toEqual(['bob launch', 'alice launch']);
    const since = Date.parse('2025-03-01T09:02:00Z');
    expect(await actions({ limit: 10, since })).toEqual(['alice end', 'alice ticket', 'bob launch']);
    expect(await actions({ limit: 10, since, user: 'alice', action: 'ticket' })).toEqual(['alice ticket']);
    expect(await log.read({ limit: 2 })).toMatchObject({ truncated: true, items: [{ action: 'end' }, {}] });
    expect((await log.read({ limit: 4 })).truncated).toBe(false);
  });

  it('is kept across restarts: a new log on the same directory reads the old lines and appends after them', async () => {
    const before = new AuditLog(dir, { now });
    before.record({ user: 'alice', action: 'launch' });
    await before.close();
    // A line torn by a crash mid-write is passed over.
    await writeFile(path.join(dir, 'audit.jsonl'), '{"time":"2025-03-01T09:0', { flag: 'a' });
    const after = new AuditLog(dir, { now });
    after.record({ user: 'alice', action: 'end' });
    const page = await after.read({ limit: 10 });
    expect(page.items.map((l) => l.action)).toEqual(['end', 'launch']);
  });

  it('reports a write it could not make, and goes on', async () => {
    const errors: string[] = [];
    const log = new AuditLog(path.join(dir, 'missing'), { now, onError: (e) => errors.push(e.message) });
    log.record({ user: 'alice', action: 'launch' });
    await log.close();
    expect(errors).toHaveLength(1);
    expect((await log.read({ limit: 10 })).items).toEqual([]);
  });
});

describe('the audit log as CSV', () => {
  it('has a header, quotes what needs it, and never hands a spreadsheet a formula', () => {
    const csv = auditCsv([
      {
        time: '2025-03-01T09:01:00.000Z',
        user: '=HYPERLINK("x")',
        action: 'launch',
        session: SESSION,
        detail: { app: 'usd-viewer', note: 'a, "b"' },
      },
      { time: '2025-03-01T09:02:00.000Z', user: 'bob', action: 'sign-in-failed', session: null, detail: {} },
    ]);
    expect(csv.split('\r\n')).toEqual([
      'time,user,action,session,detail',
      `2025-03-01T09:01:00.000Z,"'=HYPERLINK(""x"")",launch,${SESSION},"{""app"":""usd-viewer"",""note"":""a, \\""b\\""""}"`,
      '2025-03-01T09:02:00.000Z,bob,sign-in-failed,,{}',
      '',
    ]);
  });

  it('is chosen by an Accept header that prefers text/csv', () => {
    expect(acceptsCsv('text/csv')).toBe(true);
    expect(acceptsCsv('text/csv;q=0.9, application/json;q=0.5')).toBe(true);
    expect(acceptsCsv('application/json, text/csv;q=0.5')).toBe(false);
    expect(acceptsCsv('*/*')).toBe(false);
    expect(acceptsCsv('text/csv;q=0')).toBe(false);
    expect(acceptsCsv(undefined)).toBe(false);
  });
});
