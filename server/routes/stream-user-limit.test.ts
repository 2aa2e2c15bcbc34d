import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startMemoryApp, type MemoryTestApp } from '../../test-support/test-support.ts';

// One GPU and room to queue, so that most sessions here wait.
let t: MemoryTestApp;
beforeAll(async () => {
  t = await startMemoryApp({
    tokens: true,
    manager: { queueLimit: 8 },
    config: { userLimit: 2 },
  });
});
afterAll(async () => {
  await t.close();
});

type User = 'alice' | 'bob' | 'ada';

async function create(user: User, app = 'usd-viewer') {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/stream',
    headers: bearer(user),
    payload: { id: app, profile: 'default' },
  });
  return {
    status: res.statusCode,
    headers: res.headers,
    body: res.json() as { id?: string; detail?: string },
  };
}

describe('POST /api/stream per-user limit', () => {
  it('does not count a failed session', async () => {
    const crashed = await create('alice', 'crasher');
    expect([200, 202]).toContain(crashed.status);
    t.manager.fail(crashed.body.id!);
    const status = (await t.app.inject({ url: `/api/stream/${crashed.body.id}`, headers: bearer('alice') }))
      .statusCode;
    expect(status).toBe(410);
    expect(t.manager.activeCount('alice')).toBe(0);
  });

  it('answers 429 with a sentence and Retry-After past the limit, for that user only', async () => {
    const first = await create('alice');
    const second = await create('alice');
    expect([first.status, second.status].every((s) => s === 200 || s === 202)).toBe(true);
    const refused = await create('alice');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      detail: 'You already have 2 sessions running or waiting; end one before starting another.',
    });
    expect(refused.headers['retry-after']).toBe('30');
    expect([200, 202]).toContain((await create('bob')).status);

    const ended = await t.app.inject({
      method: 'DELETE',
      url: `/api/stream/${second.body.id}`,
      headers: bearer('alice'),
    });
    expect(ended.statusCode).toBe(204);
    expect(t.manager.activeCount('alice')).toBe(1);
    expect([200, 202]).toContain((await create('alice')).status);
    expect((await create('alice')).status).toBe(429);
  });

  it('does not limit admins', async () => {
    for (let i = 0; i < 3; i++) expect([200, 202]).toContain((await create('ada')).status);
    expect(t.manager.activeCount('ada')).toBe(3);
  });
});
