/** The audit log and the past sessions through the API, over an in-memory manager whose sessions the test moves. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startMemoryApp, TOKENS, type MemoryTestApp } from '../../test-support/test-support.ts';
import type { components } from '../../api/schema.ts';

type AuditEvent = components['schemas']['AuditEvent'];
type Session = components['schemas']['Session'];
type User = 'alice' | 'bob' | 'vera' | 'ada';

let t: MemoryTestApp;
beforeAll(async () => {
  t = await startMemoryApp({ tokens: true, manager: { capacity: 4, queueLimit: 4 } });
});
afterAll(async () => {
  await t.close();
});

async function launch(user: User, payload: object = {}): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/stream',
    headers: bearer(user),
    payload: { id: 'usd-viewer', profile: 'default', ...payload },
  });
  expect(res.statusCode).toBeLessThan(300);
  return (res.json() as Session).id;
}

async function audit(query = '', user: User = 'ada'): Promise<AuditEvent[]> {
  const res = await t.app.inject({ url: `/api/admin/audit${query}`, headers: bearer(user) });
  expect(res.statusCode).toBe(200);
  return (res.json() as { items: AuditEvent[] }).items;
}

async function ended(user: User, query = ''): Promise<Session[]> {
  const res = await t.app.inject({ url: `/api/stream?state=ended${query}`, headers: bearer(user) });
  expect(res.statusCode).toBe(200);
  return (res.json() as { items: Session[] }).items;
}

describe('the audit log through the API', () => {
  let id: string;
  let ticket: string;

  beforeAll(async () => {
    id = await launch('alice');
    t.manager.ready(id);
    const issued = await t.app.inject({
      method: 'POST',
      url: `/api/stream/${id}/tickets`,
      headers: bearer('alice'),
      payload: { scope: 'watch' },
    });
    ticket = (issued.json() as { ticket: string }).ticket;
    const stopped = await t.app.inject({
      method: 'DELETE',
      url: `/api/stream/${id}/tickets?scope=watch`,
      headers: bearer('alice'),
    });
    expect(stopped.statusCode).toBe(204);
    const gone = await t.app.inject({ method: 'DELETE', url: `/api/stream/${id}`, headers: bearer('alice') });
    expect(gone.statusCode).toBe(204);
  });

  it('has a line for the launch, the ticket (its scope), the stop of sharing and the end, newest first', async () => {
    const mine = (await audit('?user=alice')).filter((e) => e.session === id);
    expect(mine.map((e) => e.action)).toEqual(['end', 'stop-sharing', 'ticket', 'launch']);
    expect(mine[3]).toMatchObject({
      user: 'alice',
      detail: { app: 'usd-viewer', version: '1.10.0', profile: 'default' },
    });
    expect(mine[2]?.detail).toMatchObject({ scope: 'watch' });
    expect(Date.parse(mine[0]?.time ?? '')).toBeGreaterThanOrEqual(Date.parse(mine[3]?.time ?? ''));
  });

  it('never holds a ticket or a token, in its answers or its file', async () => {
    await t.app.inject({ url: '/api/admin/audit', headers: { authorization: 'Bearer not-a-token' } });
    const file = await readFile(path.join(t.dataDir, 'audit.jsonl'), 'utf8');
    const answer = JSON.stringify(await audit());
    for (const secret of [ticket, ...Object.values(TOKENS), 'not-a-token']) {
      expect(file).not.toContain(secret);
      expect(answer).not.toContain(secret);
    }
  });

  it('records a failed sign-in with its address and the kind of credential, never the credential', async () => {
    await t.app.inject({
      url: '/api/cfg/apps',
      remoteAddress: '192.0.2.44',
      headers: { authorization: 'Bearer not-a-token-either' },
    });
    const [line] = (await audit('?action=sign-in-failed')).filter((e) => e.detail?.address === '192.0.2.44');
    expect(line).toMatchObject({ user: '(unknown)', detail: { address: '192.0.2.44', kind: 'token' } });
    expect(JSON.stringify(line)).not.toContain('not-a-token-either');
  });

  it('is for admins only: 403 with a sentence, before the query is even looked at', async () => {
    for (const user of ['alice', 'vera'] as const) {
      for (const query of ['', '?since=yesterday']) {
        const res = await t.app.inject({ url: `/api/admin/audit${query}`, headers: bearer(user) });
        expect(res.statusCode).toBe(403);
        expect(res.json()).toEqual({
          detail: 'The audit log is for administrators; use a token with the admin role.',
        });
      }
    }
    expect((await t.app.inject({ url: '/api/admin/audit' })).statusCode).toBe(403);
  });

  it('filters by person, action and time, and refuses a time or action it does not know', async () => {
    await launch('bob');
    expect((await audit('?action=launch')).map((e) => e.user)).toEqual(
      expect.arrayContaining(['alice', 'bob']),
    );
    expect(new Set((await audit('?user=bob')).map((e) => e.user))).toEqual(new Set(['bob']));
    expect((await audit('?action=launch&limit=1')).map((e) => e.user)).toEqual(['bob']);
    expect(await audit(`?since=${new Date(Date.now() + 60_000).toISOString()}`)).toEqual([]);
    expect((await audit('?since=2020-01-01')).length).toBeGreaterThan(0);
    const bad = await t.app.inject({
      url: '/api/admin/audit?since=yesterday&action=nap',
      headers: bearer('ada'),
    });
    expect(bad.statusCode).toBe(422);
    const { detail } = bad.json() as { detail: { loc: string[]; type: string; msg: string }[] };
    expect(detail.map((d) => [d.loc.join('.'), d.type])).toEqual(
      expect.arrayContaining([
        ['query.action', 'enum'],
        ['query.since', 'string_pattern_mismatch'],
      ]),
    );
    const month13 = await t.app.inject({ url: '/api/admin/audit?since=2025-13-01', headers: bearer('ada') });
    expect(month13.json()).toMatchObject({ detail: [{ loc: ['query', 'since'], type: 'datetime_parsing' }] });
    expect(detail.find((d) => d.type === 'enum')?.msg).toMatch(
      /^Input should be 'sign-in-failed', .* or 'file-delete'$/,
    );
  });

  it('comes as CSV for a download when asked with Accept: text/csv', async () => {
    const res = await t.app.inject({
      url: '/api/admin/audit?user=alice',
      headers: { ...bearer('ada'), accept: 'text/csv' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toContain('attachment');
    const rows = res.body.trim().split('\r\n');
    expect(rows[0]).toBe('time,user,action,session,detail');
    expect(rows.slice(1).some((row) => row.includes(`,alice,launch,${id},`))).toBe(true);
  });

  it("tells an admin's Try from a launch", async () => {
    await launch('ada', { purpose: 'try' });
    await launch('alice', { purpose: 'try' });
    expect((await audit('?limit=2')).map((e) => `${e.user} ${e.action}`)).toEqual([
      'alice launch',
      'ada admin-try',
    ]);
  });

  it('records a session that ended by itself under its owner, with why', async () => {
    const crashed = await launch('bob', { id: 'crasher' });
    t.manager.fail(crashed);
    const [line] = (await audit('?action=session-ended')).filter((e) => e.session === crashed);
    expect(line).toMatchObject({ user: 'bob', detail: { cause: 'failed', app: 'crasher' } });
    expect(line?.detail.reason).toContain('Crasher 1.0.0');
  });
});

describe('past sessions: GET /stream?state=ended', () => {
  let alices: string;
  let bobs: string;
  beforeAll(async () => {
    alices = await launch('alice');
    bobs = await launch('bob');
    await t.app.inject({ method: 'DELETE', url: `/api/stream/${alices}`, headers: bearer('alice') });
    // An admin ends someone else's session.
    await t.app.inject({ method: 'DELETE', url: `/api/stream/${bobs}`, headers: bearer('ada') });
  });

  it('shows its owner the ended session, with when, how long and why, and not to anyone else', async () => {
    const [first] = await ended('alice');
    expect(first).toMatchObject({
      id: alices,
      status: { condition: 'ended', message: 'Ended by alice', status: false },
      app: 'usd-viewer',
      version: '1.10.0',
      profile: 'default',
      user: 'alice',
      end_cause: 'deleted',
      ended_by: 'alice',
    });
    expect(first?.duration_s).toBeGreaterThanOrEqual(0);
    expect(Date.parse(first?.ended_at ?? '')).toBeGreaterThanOrEqual(Date.parse(first?.created_at ?? ''));
    expect((await ended('bob')).map((s) => s.id)).not.toContain(alices);
    // The live list stays as it was: the ended session is gone from it.
    const live = await t.app.inject({ url: '/api/stream', headers: bearer('alice') });
    expect((live.json() as { items: Session[] }).items.map((s) => s.id)).not.toContain(alices);
  });

  it('lets an admin see everyone, or one person; anyone else only themselves', async () => {
    const all = (await ended('ada')).map((s) => s.id);
    expect(all).toEqual(expect.arrayContaining([alices, bobs]));
    // Newest first.
    expect(all.indexOf(bobs)).toBeLessThan(all.indexOf(alices));
    const bobsOnly = await ended('ada', '&user=bob');
    expect(new Set(bobsOnly.map((s) => s.user))).toEqual(new Set(['bob']));
    expect(bobsOnly[0]).toMatchObject({ id: bobs, ended_by: 'ada', status: { message: 'Ended by ada' } });
    expect((await ended('alice', '&user=alice')).map((s) => s.id)).toContain(alices);
    const refused = await t.app.inject({ url: '/api/stream?state=ended&user=alice', headers: bearer('bob') });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ detail: "Only administrators may list other people's sessions." });
  });

  it("records an admin's end of someone else's session as such", async () => {
    const [line] = (await audit('?action=end')).filter((e) => e.session === bobs);
    expect(line).toMatchObject({ user: 'ada', detail: { owner: 'bob', as_admin: true } });
  });

  it('refuses a state it does not know', async () => {
    const res = await t.app.inject({ url: '/api/stream?state=past', headers: bearer('alice') });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ detail: [{ loc: ['query', 'state'], type: 'enum' }] });
  });
});
