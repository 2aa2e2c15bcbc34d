import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../testing/test-support.ts';

// This file's ports: 48340-48349 (no session is started).
let withTokens: TestApp;
let open: TestApp;
beforeAll(async () => {
  withTokens = await startTestApp({ tokens: true, ports: { first: 48340, last: 48344 } });
  open = await startTestApp({ ports: { first: 48345, last: 48349 } });
});
afterAll(async () => {
  await Promise.all([withTokens.close(), open.close()]);
});

describe('GET /metrics', () => {
  it('answers only admins when there is a tokens file', async () => {
    const get = (headers: Record<string, string> = {}) => withTokens.app.inject({ url: '/metrics', headers });
    const unknown: Record<string, string>[] = [{}, { authorization: 'Bearer not-a-known-token' }];
    for (const headers of unknown) {
      const refused = await get(headers);
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toEqual({ detail: 'Not authenticated' });
    }
    for (const user of ['alice', 'vera'] as const) {
      const refused = await get(bearer(user));
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toEqual({
        detail: 'The metrics are for administrators; use a token with the admin role.',
      });
    }
    const allowed = await get(bearer('ada'));
    expect(allowed.statusCode).toBe(200);
    expect(allowed.body).toContain('streamgate_sessions{state="ready"}');
  });

  it('stays open without a tokens file, where every caller is an admin', async () => {
    const answer = await open.app.inject('/metrics');
    expect(answer.statusCode).toBe(200);
    expect(answer.body).toContain('streamgate_queue_length');
  });
});

describe('GET /api/admin/capacity', () => {
  it('answers only admins, with the capacity, what holds it and what waits', async () => {
    const get = (headers: Record<string, string> = {}) =>
      withTokens.app.inject({ url: '/api/admin/capacity', headers });
    const refused = await get(bearer('alice'));
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({
      detail: 'The capacity figures are for administrators; use a token with the admin role.',
    });
    const allowed = await get(bearer('ada'));
    expect(allowed.statusCode).toBe(200);
    expect(allowed.json()).toEqual({
      capacity: expect.any(Number),
      running: 0,
      warm: 0,
      queued: 0,
      by_profile: [],
    });
    const post = await withTokens.app.inject({
      method: 'POST',
      url: '/api/admin/capacity',
      headers: bearer('ada'),
    });
    expect(post.statusCode).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
  });
});
