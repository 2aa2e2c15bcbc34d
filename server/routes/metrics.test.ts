import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../test-support/test-support.ts';

// This file's ports: 28340-28349 (no session is started).
let withTokens: TestApp;
let open: TestApp;
beforeAll(async () => {
  withTokens = await startTestApp({ tokens: true, ports: { first: 28340, last: 28344 } });
  open = await startTestApp({ ports: { first: 28345, last: 28349 } });
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

  it('counts every answer sent before the scrape, with its route pattern and status', async () => {
    const count = (body: string) =>
      Number(
        /streamgate_http_request_duration_seconds_count\{method="GET",route="\/api\/stream\/:session_id",status_code="404"\} (\d+)/.exec(
          body,
        )?.[1] ?? 0,
      );
    const before = count((await open.app.inject('/metrics')).body);
    // No turn of the event loop between the answers and the scrape: each answer is counted as it ends.
    await Promise.all([1, 2, 3].map(() => open.app.inject(`/api/stream/${randomUUID()}`)));
    expect(count((await open.app.inject('/metrics')).body)).toBe(before + 3);
  });

  it('stays open without a tokens file, where every caller is an admin', async () => {
    const answer = await open.app.inject('/metrics');
    expect(answer.statusCode).toBe(200);
    expect(answer.body).toContain('streamgate_queue_length');
    // The door's figures, with no relay in this app: none relayed (CONTRACT §21).
    expect(answer.body).toContain('streamgate_door_relayed_viewers{what="viewers"} 0');
    expect(answer.body).toContain('streamgate_door_relayed_bytes{direction="in"} 0');
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
      // No relay in this app: the door's figures say so (CONTRACT §21).
      door: {
        signaling: 'auto',
        relay: 'none',
        relayed_viewers: 0,
        relayed_flows: 0,
        relay_bytes_in: 0,
        relay_bytes_out: 0,
        offers: 0,
      },
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
