/**
 * Malformed requests of many kinds against the real app: none may answer 5xx, crash the app or change
 * what it holds. The generator is seeded, so a failure can be replayed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reseed, requestCase, VALID } from '../test-support/fuzz-cases.ts';
import { startTestApp, type TestApp } from '../test-support/test-support.ts';
import { until } from '../test-support/until.ts';

const SEED = 20_261_121;
const COUNT = 1_200;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ ports: { first: 28260, last: 28279 } });
});
afterAll(async () => {
  await t.close();
});

/** What the app holds, as a client sees it. */
async function snapshot(): Promise<string> {
  const urls = [
    '/api/stream',
    '/api/cfg/apps',
    '/api/cfg/apps/usd-viewer',
    '/api/cfg/apps/usd-viewer/versions',
    '/api/cfg/apps/*/versions/*/profiles',
  ];
  const answers = await Promise.all(urls.map((url) => t.app.inject(url)));
  // When a session with no viewer will end moves with time, not with requests: it is left out.
  return JSON.stringify(
    answers.map((a) => [a.statusCode, a.json()]),
    (key, value: unknown) => (key === 'idle_ends_at' ? undefined : value),
  );
}

describe('fuzz', () => {
  it(`answers ${COUNT} malformed requests without 5xx or any change of state`, async () => {
    const created = await t.app.inject({ method: 'POST', url: '/api/stream', payload: VALID });
    expect(created.statusCode).toBeLessThan(300);
    // A settled state to compare with: the session ready, so that only a request could change it.
    const id = (created.json() as { id: string }).id;
    await until(
      'the session to be ready',
      async () => (await t.app.inject(`/api/stream/${id}`)).statusCode === 200,
    );
    const before = await snapshot();

    reseed(SEED);
    const failures: string[] = [];
    for (let i = 0; i < COUNT; i++) {
      const request = requestCase();
      const res = await t.app.inject(request);
      const body = res.body === '' ? null : (res.json() as { detail?: unknown });
      const shapeOk =
        res.statusCode < 400 ||
        (res.statusCode === 422
          ? Array.isArray(body?.detail) &&
            (body.detail as { loc?: unknown }[]).every((d) => Array.isArray(d.loc))
          : typeof body?.detail === 'string');
      if (
        (res.statusCode < 300 && request.method !== 'GET') ||
        res.statusCode >= 500 ||
        !shapeOk ||
        res.body.includes('/work') ||
        res.body.includes('node_modules')
      ) {
        failures.push(
          `#${i} ${request.method} ${String(request.url).slice(0, 120)} -> ${res.statusCode} ${String(request.payload).slice(0, 200)}`,
        );
      }
    }
    expect(failures).toEqual([]);
    expect(await snapshot()).toBe(before);
    expect((await t.app.inject('/healthz')).statusCode).toBe(200);
  });
});
