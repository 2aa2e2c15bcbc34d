/**
 * The /stream routes over an in-memory manager: one GPU and a queue of one, sessions made ready or failed by the
 * test, so that every answer of a session's life is asserted without an application running.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startMemoryApp, type MemoryTestApp } from '../../test-support/test-support.ts';

let t: MemoryTestApp;
beforeAll(async () => {
  t = await startMemoryApp({ tokens: true });
});
afterAll(async () => {
  await t.close();
});

type User = 'alice' | 'bob' | 'vera' | 'ada';
interface Answer {
  status: number;
  headers: Record<string, unknown>;
  body: {
    detail?: unknown;
    id?: string;
    status?: { condition: string; message: string };
    [k: string]: unknown;
  };
}

async function call(
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  user: User,
  payload?: unknown,
): Promise<Answer> {
  const res = await t.app.inject({
    method,
    url,
    headers: {
      ...bearer(user),
      ...(typeof payload === 'string' ? { 'content-type': 'application/json' } : {}),
    },
    ...(payload === undefined
      ? {}
      : typeof payload === 'string'
        ? { payload }
        : { payload: payload as object }),
  });
  return { status: res.statusCode, headers: res.headers, body: res.body ? res.json() : {} };
}

async function endAll(): Promise<void> {
  const list = await call('GET', '/api/stream?limit=500', 'ada');
  for (const item of list.body.items as { id: string }[])
    await call('DELETE', `/api/stream/${item.id}`, 'ada');
}

function locs(answer: Answer): { loc: unknown[]; type: string }[] {
  expect(answer.status).toBe(422);
  return (answer.body.detail as { loc: unknown[]; type: string }[]).map(({ loc, type }) => ({ loc, type }));
}

describe('POST /api/stream validation', () => {
  const post = (payload: unknown, user: User = 'alice') => call('POST', '/api/stream', user, payload);

  it('names each invalid field with its Pydantic type', async () => {
    expect(locs(await post('[1]'))).toEqual([{ loc: ['body'], type: 'model_type' }]);
    expect(locs(await post({}))).toEqual([
      { loc: ['body', 'id'], type: 'missing' },
      { loc: ['body', 'profile'], type: 'missing' },
    ]);
    expect(locs(await post({ id: 7, profile: 'default' }))).toEqual([
      { loc: ['body', 'id'], type: 'string_type' },
    ]);
    expect(locs(await post({ id: '../x', profile: 'default' }))).toEqual([
      { loc: ['body', 'id'], type: 'string_pattern_mismatch' },
    ]);
    expect(locs(await post({ id: 'usd-viewer', profile: 'default', version: '1.2' }))).toEqual([
      { loc: ['body', 'version'], type: 'string_pattern_mismatch' },
    ]);
    expect(locs(await post({ id: 'usd-viewer', profile: 'default', version: 1 }))).toEqual([
      { loc: ['body', 'version'], type: 'string_type' },
    ]);
    expect(locs(await post({ id: 'usd-viewer', profile: 'default', arguments: [] }))).toEqual([
      { loc: ['body', 'arguments'], type: 'dict_type' },
    ]);
    const longUri = { id: 'usd-viewer', profile: 'default', arguments: { usd_stage_uri: 'x'.repeat(3000) } };
    expect(locs(await post(longUri))).toEqual([
      { loc: ['body', 'arguments', 'usd_stage_uri'], type: 'string_too_long' },
    ]);
  });

  it('answers json_invalid for malformed JSON and missing for an empty body', async () => {
    expect(locs(await post('{"id": '))[0]?.type).toBe('json_invalid');
    expect(locs(await post(''))).toEqual([{ loc: ['body'], type: 'missing' }]);
  });

  it('answers not_found at the field naming an unknown application, version or profile', async () => {
    expect(locs(await post({ id: 'nope', profile: 'default' }))).toEqual([
      { loc: ['body', 'id'], type: 'not_found' },
    ]);
    expect(locs(await post({ id: 'usd-viewer', profile: 'default', version: '9.9.9' }))).toEqual([
      { loc: ['body', 'version'], type: 'not_found' },
    ]);
    expect(locs(await post({ id: 'usd-viewer', profile: 'nope' }))).toEqual([
      { loc: ['body', 'profile'], type: 'not_found' },
    ]);
    // ten-only applies to 1.10.0, not to 1.9.0.
    expect(locs(await post({ id: 'usd-viewer', profile: 'ten-only', version: '1.9.0' }))).toEqual([
      { loc: ['body', 'profile'], type: 'not_found' },
    ]);
  });

  it('answers 413 for a body over 64 KiB and 403 for a viewer or a missing token', async () => {
    const huge = await post({ id: 'usd-viewer', profile: 'default', arguments: { pad: 'x'.repeat(70_000) } });
    expect(huge.status).toBe(413);
    expect(typeof huge.body.detail).toBe('string');
    expect((await post({ id: 'usd-viewer', profile: 'default' }, 'vera')).status).toBe(403);
    const anonymous = await t.app.inject({ method: 'POST', url: '/api/stream', payload: { id: 'x' } });
    expect(anonymous.json()).toEqual({ detail: 'Not authenticated' });
  });
});

describe('sessions', () => {
  it('answers 202, then 200 with routes once ready; another user gets 403, the admin sees it', async () => {
    const created = await call('POST', '/api/stream', 'alice', { id: 'usd-viewer', profile: 'ten-only' });
    expect(created.status).toBe(202);
    expect(created.body.routes).toBeUndefined();
    expect(created.body.status).toMatchObject({ condition: 'pending', status: false });
    const id = created.body.id as string;
    expect((await call('GET', `/api/stream/${id}`, 'alice')).status).toBe(202);

    t.manager.ready(id);
    const ready = await call('GET', `/api/stream/${id}`, 'alice');
    expect(ready.status).toBe(200);
    expect(ready.body.status).toMatchObject({ condition: 'ready', status: true });
    const routes = (ready.body.routes as Record<string, { description: string; source_port: number }[]>)[
      '127.0.0.1'
    ];
    expect(routes?.map((r) => r.description)).toEqual(['signaling', 'media']);
    // The ports the manager handed the session.
    expect(routes?.map((r) => r.source_port)).toEqual([
      t.manager.get(id)?.ports?.signaling,
      t.manager.get(id)?.ports?.media,
    ]);

    const other = await call('GET', `/api/stream/${id}`, 'bob');
    expect(other).toMatchObject({ status: 403 });
    expect(JSON.stringify(other.body)).not.toContain(id);
    expect((await call('DELETE', `/api/stream/${id}`, 'bob')).status).toBe(403);
    expect((await call('GET', '/api/stream', 'bob')).body).toMatchObject({ count: 0, items: [] });
    expect((await call('GET', '/api/stream', 'ada')).body).toMatchObject({ count: 1, offset: 0, limit: 50 });
    // What was launched, when and by whom, for a list read from another browser.
    const launched = { app: 'usd-viewer', version: '1.10.0', profile: 'ten-only', user: 'alice' };
    expect(ready.body).toMatchObject({ ...launched, created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect((await call('GET', '/api/stream', 'ada')).body.items).toEqual([
      expect.objectContaining({ id, ...launched }),
    ]);
    expect((await call('GET', `/api/stream/${id}`, 'ada')).status).toBe(200);

    expect((await call('DELETE', '/api/stream', 'alice', { id })).status).toBe(204);
    expect((await call('GET', `/api/stream/${id}`, 'alice')).status).toBe(404);
    expect((await call('DELETE', `/api/stream/${id}`, 'alice')).status).toBe(404);
  });

  it('answers 410 with the reason after the application exits', async () => {
    const created = await call('POST', '/api/stream', 'alice', { id: 'crasher', profile: 'default' });
    const id = created.body.id as string;
    t.manager.ready(id);
    expect((await call('GET', `/api/stream/${id}`, 'alice')).status).toBe(200);
    t.manager.fail(id, 'Crasher 1.0.0 exited with code 1');
    const answer = await call('GET', `/api/stream/${id}`, 'alice');
    expect(answer.status).toBe(410);
    expect(answer.body.detail).toBe('The session failed: Crasher 1.0.0 exited with code 1');
    const listed = await call('GET', '/api/stream', 'alice');
    expect((listed.body.items as { status: { condition: string } }[])[0]?.status.condition).toBe('failed');
    await endAll();
  });

  it('answers 503 with Retry-After when the queue is full, and 202 then 200 when capacity frees', async () => {
    const body = { id: 'usd-viewer', profile: 'default' };
    const first = await call('POST', '/api/stream', 'alice', body);
    const second = await call('POST', '/api/stream', 'bob', body);
    expect(second.status).toBe(202);
    expect(second.body.status?.message).toMatch(/wait/i);
    const third = await call('POST', '/api/stream', 'alice', body);
    expect(third.status).toBe(503);
    expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
    expect(typeof third.body.detail).toBe('string');

    expect((await call('GET', `/api/stream/${second.body.id}`, 'bob')).status).toBe(202);
    t.manager.ready(first.body.id as string);
    expect((await call('DELETE', `/api/stream/${first.body.id}`, 'alice')).status).toBe(204);
    // The freed GPU goes to the session that waited: it starts, then is ready.
    const starting = await call('GET', `/api/stream/${second.body.id}`, 'bob');
    expect(starting.status).toBe(202);
    expect(starting.body.status?.message).toMatch(/^Starting /);
    t.manager.ready(second.body.id as string);
    expect((await call('GET', `/api/stream/${second.body.id}`, 'bob')).status).toBe(200);
    await endAll();
  });

  it('checks ids and paging parameters', async () => {
    expect(locs(await call('GET', '/api/stream/not-a-uuid', 'alice'))).toEqual([
      { loc: ['path', 'session_id'], type: 'string_pattern_mismatch' },
    ]);
    expect((await call('GET', '/api/stream/0b0c1d2e-3f40-4a5b-8c6d-7e8f90a1b2c3', 'alice')).status).toBe(404);
    expect(locs(await call('DELETE', '/api/stream', 'alice', { id: 'x' }))).toEqual([
      { loc: ['body', 'id'], type: 'string_pattern_mismatch' },
    ]);
    expect(locs(await call('DELETE', '/api/stream', 'alice', {}))).toEqual([
      { loc: ['body', 'id'], type: 'missing' },
    ]);
    expect(locs(await call('GET', '/api/stream?limit=abc', 'alice'))).toEqual([
      { loc: ['query', 'limit'], type: 'int_parsing' },
    ]);
    expect(locs(await call('GET', '/api/stream?limit=501', 'alice'))).toEqual([
      { loc: ['query', 'limit'], type: 'less_than_equal' },
    ]);
    expect(locs(await call('GET', '/api/stream?offset=-1', 'alice'))).toEqual([
      { loc: ['query', 'offset'], type: 'greater_than_equal' },
    ]);
    expect((await call('GET', '/api/stream?offset=3&limit=2', 'alice')).body).toEqual({
      offset: 3,
      limit: 2,
      count: 0,
      items: [],
    });
  });
});
