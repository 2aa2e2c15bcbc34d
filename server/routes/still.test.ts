/**
 * GET /api/stream/{id}/still over an in-memory manager: who is served the still of a session, and what the
 * others are told. That the application is told where to keep it, and that it goes with the application, is
 * still.process.test.ts's, with real applications.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stillDirOf, stillPath } from '../runners/still-files.ts';
import { bearer, startMemoryApp, type MemoryTestApp } from '../../test-support/test-support.ts';

let t: MemoryTestApp;
beforeAll(async () => {
  t = await startMemoryApp({ tokens: true, manager: { capacity: 2 } });
});
afterAll(async () => {
  await t.close();
});

type User = 'alice' | 'bob' | 'vera' | 'ada';
const still = (id: string, user?: User) =>
  t.app.inject({ method: 'GET', url: `/api/stream/${id}/still`, headers: user ? bearer(user) : {} });

/** Starts a session of `app` for alice; returns its id. */
async function start(app: string): Promise<string> {
  const created = await t.app.inject({
    method: 'POST',
    url: '/api/stream',
    headers: bearer('alice'),
    payload: { id: app, profile: 'default' },
  });
  return created.json().id as string;
}

/** Writes the still of session `id` as its application's ffmpeg would. */
async function keepStill(id: string): Promise<void> {
  await mkdir(stillDirOf(t.dataDir), { recursive: true, mode: 0o700 });
  await writeFile(stillPath(stillDirOf(t.dataDir), id), jpeg, { mode: 0o600 });
}

const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4, 0xff, 0xd9]);
const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);

describe('GET /api/stream/{id}/still', () => {
  it('serves the owner and admins the still the application keeps, once there is one', async () => {
    const id = await start('usd-viewer');
    t.manager.ready(id);
    const before = await still(id, 'alice');
    expect(before.statusCode).toBe(404);
    expect(before.json().detail).toMatch(/no still yet/);

    await keepStill(id);
    for (const user of ['alice', 'ada'] as const) {
      const res = await still(id, user);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('image/jpeg');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.rawPayload.equals(jpeg)).toBe(true);
    }
    // What Streamgate's applications make, a PNG, is served as one.
    await writeFile(stillPath(stillDirOf(t.dataDir), id), png, { mode: 0o600 });
    expect((await still(id, 'alice')).headers['content-type']).toBe('image/png');

    expect((await still(id, 'bob')).statusCode).toBe(403);
    // A viewer may not use sessions at all, nor may a caller without a token.
    expect((await still(id, 'vera')).statusCode).toBe(403);
    expect((await still(id)).statusCode).toBe(403);
    expect((await still(crypto.randomUUID(), 'alice')).statusCode).toBe(404);
    const malformed = await still('not-a-session', 'alice');
    expect(malformed.statusCode).toBe(422);
    expect(malformed.json().detail[0].loc).toEqual(['path', 'session_id']);

    const ended = await t.app.inject({
      method: 'DELETE',
      url: `/api/stream/${id}`,
      headers: bearer('alice'),
    });
    expect(ended.statusCode).toBe(204);
    expect((await still(id, 'alice')).statusCode).toBe(404);
  });

  it('answers 410 for a failed session, even with its still left behind', async () => {
    const id = await start('usd-viewer');
    t.manager.ready(id);
    await keepStill(id);
    expect((await still(id, 'alice')).statusCode).toBe(200);
    t.manager.fail(id);
    expect((await still(id, 'alice')).statusCode).toBe(410);
  });
});
