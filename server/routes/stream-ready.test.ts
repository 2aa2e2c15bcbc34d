import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMemoryApp, type MemoryTestApp } from '../../test-support/test-support.ts';

let t: MemoryTestApp;
beforeAll(async () => {
  // A session ready at once, as one whose application answers within POST's wait for readiness.
  t = await startMemoryApp({ manager: { readyAtOnce: true } });
});
afterAll(async () => {
  await t.close();
});

describe('POST /api/stream with a wait for readiness', () => {
  it('answers 200 with routes when the session is ready within the wait', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/stream',
      payload: { id: 'usd-viewer', profile: 'default' },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json() as {
      id: string;
      routes: Record<string, { description: string; protocol: string }[]>;
    };
    expect(body).toMatchObject({ status: { condition: 'ready', status: true } });
    expect(body.routes['127.0.0.1']?.map((r) => `${r.description}/${r.protocol}`)).toEqual([
      'signaling/TCP',
      'media/UDP',
    ]);
    expect((await t.app.inject({ method: 'DELETE', url: `/api/stream/${body.id}` })).statusCode).toBe(204);
  });

  it('answers 500 without internals when the session machinery fails', async () => {
    await t.manager.stop();
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/stream',
      payload: { id: 'usd-viewer', profile: 'default' },
    });
    expect(res.statusCode).toBe(500);
    const { detail } = res.json() as { detail: string };
    expect(detail).toMatch(/try again/);
    expect(detail).not.toMatch(/stopping|manager|\.ts|at /);
  });
});
