/**
 * Viewer tickets and the stop of sharing over an in-memory manager whose tickets are signed with the data
 * directory's key, as the real manager's are: what a route hands out is checked as an application checks it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyTicket } from '../../protocol/viewer-ticket.ts';
import { ViewerTickets } from '../auth/viewer-tickets.ts';
import { bearer, startMemoryApp, type MemoryTestApp } from '../../test-support/test-support.ts';

let t: MemoryTestApp;
let sessionId: string;
beforeAll(async () => {
  t = await startMemoryApp({ tokens: true, manager: { capacity: 2 } });
  const created = await t.app.inject({
    method: 'POST',
    url: '/api/stream',
    headers: bearer('alice'),
    payload: { id: 'usd-viewer', profile: 'default' },
  });
  sessionId = created.json().id;
});
afterAll(async () => {
  await t.close();
});

type User = 'alice' | 'bob' | 'vera' | 'ada';
const ask = (id: string, user: User, payload?: unknown) =>
  t.app.inject({
    method: 'POST',
    url: `/api/stream/${id}/tickets`,
    headers: bearer(user),
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

describe('POST /api/stream/{id}/tickets', () => {
  it('gives the owner a short control ticket that only this session accepts', async () => {
    const res = await ask(sessionId, 'alice');
    expect(res.statusCode).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json() as { ticket: string; scope: string; expires_at: string };
    expect(body.scope).toBe('control');
    const life = Date.parse(body.expires_at) - Date.now();
    expect(life).toBeGreaterThan(30_000);
    expect(life).toBeLessThanOrEqual(120_000);
    // The key is the data directory's: a restarted service signs with the same one.
    const tickets = await ViewerTickets.open(t.dataDir);
    expect(await verifyTicket(tickets.secretOf(sessionId), sessionId, body.ticket)).toMatchObject({
      scope: 'control',
    });
    const other = crypto.randomUUID();
    expect(await verifyTicket(tickets.secretOf(other), other, body.ticket)).toBeNull();
    expect(await verifyTicket(tickets.secretOf(other), sessionId, body.ticket)).toBeNull();
  });

  it('gives a watch ticket that lasts as long as the session may, or as asked', async () => {
    const res = await ask(sessionId, 'ada', { scope: 'watch' });
    expect(res.statusCode).toBe(201);
    const { scope, expires_at } = res.json() as { scope: string; expires_at: string };
    expect(scope).toBe('watch');
    // The test profile's sessions live at most 180 minutes (the default).
    expect(Date.parse(expires_at) - Date.now()).toBeGreaterThan(179 * 60_000);
    expect(Date.parse(expires_at) - Date.now()).toBeLessThanOrEqual(180 * 60_000);
    const asked = (await ask(sessionId, 'alice', { scope: 'watch', ttl_s: 60 })).json();
    expect(Date.parse(asked.expires_at) - Date.now()).toBeLessThanOrEqual(60_000);
  });

  it('names the person who asked in a control ticket, and nobody in a watch ticket', async () => {
    const tickets = await ViewerTickets.open(t.dataDir);
    const grant = async (user: User, scope: 'control' | 'watch') => {
      const { ticket } = (await ask(sessionId, user, { scope })).json() as { ticket: string };
      return verifyTicket(tickets.secretOf(sessionId), sessionId, ticket);
    };
    expect((await grant('alice', 'control'))?.name).toBe('alice');
    // An admin who joins another's session is named as themselves, not as its owner.
    expect((await grant('ada', 'control'))?.name).toBe('ada');
    const watch = await grant('alice', 'watch');
    expect(watch).toMatchObject({ scope: 'watch' });
    expect(watch).not.toHaveProperty('name');
  });

  it('never makes a control ticket last more than two minutes, whatever is asked', async () => {
    const res = await ask(sessionId, 'alice', { scope: 'control', ttl_s: 604_800 });
    expect(res.statusCode).toBe(201);
    expect(Date.parse(res.json().expires_at) - Date.now()).toBeLessThanOrEqual(120_000);
  });

  it('refuses everyone but the owner and admins, unknown sessions and bad bodies', async () => {
    expect((await ask(sessionId, 'bob')).statusCode).toBe(403);
    expect((await ask(sessionId, 'vera')).statusCode).toBe(403);
    const stranger = await t.app.inject({ method: 'POST', url: `/api/stream/${sessionId}/tickets` });
    expect(stranger.statusCode).toBe(403);
    expect((await ask(crypto.randomUUID(), 'alice')).statusCode).toBe(404);
    const malformed = await ask('not-a-session', 'alice');
    expect(malformed.statusCode).toBe(422);
    expect(malformed.json().detail[0].loc).toEqual(['path', 'session_id']);
    const scope = await ask(sessionId, 'alice', { scope: 'admin' });
    expect(scope.statusCode).toBe(422);
    expect(scope.json().detail[0].loc).toEqual(['body', 'scope']);
    expect((await ask(sessionId, 'alice', { ttl_s: 0 })).json().detail[0].loc).toEqual(['body', 'ttl_s']);
  });

  it('looks at the session before the body: a bad body tells a stranger nothing more', async () => {
    expect((await ask(sessionId, 'bob', { scope: 'admin' })).statusCode).toBe(403);
    expect((await ask(sessionId, 'vera', { ttl_s: 0 })).statusCode).toBe(403);
    expect((await ask(crypto.randomUUID(), 'alice', { scope: 'admin' })).statusCode).toBe(404);
    // A malformed id is still a 422 at the path, whatever the body (CONTRACT section 4).
    const malformed = await ask('not-a-session', 'alice', { scope: 'admin' });
    expect(malformed.statusCode).toBe(422);
    expect(malformed.json().detail).toEqual([expect.objectContaining({ loc: ['path', 'session_id'] })]);
  });

  it('stops the sharing for the owner and admins: watch tickets issued afterwards are issued later than the stop', async () => {
    const stop = (id: string, user?: User, query = '?scope=watch') =>
      t.app.inject({
        method: 'DELETE',
        url: `/api/stream/${id}/tickets${query}`,
        ...(user ? { headers: bearer(user) } : {}),
      });
    const issuedMs = async (ticket: string) => {
      const tickets = await ViewerTickets.open(t.dataDir);
      return (await verifyTicket(tickets.secretOf(sessionId), sessionId, ticket))!.issuedMs;
    };
    const before = await issuedMs((await ask(sessionId, 'alice', { scope: 'watch' })).json().ticket);
    const stopped = await stop(sessionId, 'alice');
    expect(stopped.statusCode).toBe(204);
    expect((await stop(sessionId, 'ada')).statusCode).toBe(204);
    const after = await issuedMs((await ask(sessionId, 'alice', { scope: 'watch' })).json().ticket);
    expect(after).toBeGreaterThan(before);

    expect((await stop(sessionId, 'bob')).statusCode).toBe(403);
    expect((await stop(sessionId, 'vera')).statusCode).toBe(403);
    expect((await stop(sessionId)).statusCode).toBe(403);
    expect((await stop(crypto.randomUUID(), 'alice')).statusCode).toBe(404);
    // Only watch tickets can be revoked: a control ticket serves one connection anyway.
    const control = await stop(sessionId, 'alice', '?scope=control');
    expect(control.statusCode).toBe(422);
    expect(control.json().detail[0].loc).toEqual(['query', 'scope']);
    expect((await stop(sessionId, 'alice', '')).json().detail[0].loc).toEqual(['query', 'scope']);
    // A stranger learns nothing from a bad query.
    expect((await stop(sessionId, 'bob', '')).statusCode).toBe(403);
    expect((await stop('not-a-session', 'alice')).json().detail[0].loc).toEqual(['path', 'session_id']);
  });

  it('answers 410 for a failed session', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/stream',
      headers: bearer('alice'),
      payload: { id: 'crasher', profile: 'default' },
    });
    const id = created.json().id as string;
    t.manager.fail(id);
    expect((await ask(id, 'alice')).statusCode).toBe(410);
    expect((await ask(id, 'alice', { scope: 'admin' })).statusCode).toBe(410);
    const stop = await t.app.inject({
      method: 'DELETE',
      url: `/api/stream/${id}/tickets?scope=watch`,
      headers: bearer('alice'),
    });
    expect(stop.statusCode).toBe(410);
  });
});
