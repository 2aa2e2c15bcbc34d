/**
 * The stills of real applications (stand-ins) under a real manager: the application is told where to keep its
 * still, in a directory only the service's user may read, and the still goes when the application does. What the
 * route answers is still.test.ts's. This file's ports: 28440-28449.
 */
import { existsSync } from 'node:fs';
import { stat, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stillDirOf, stillPath } from '../runners/still-files.ts';
import { environmentOf, waitFor } from '../../test-support/session-support.ts';
import { bearer, startTestApp, type TestApp } from '../../test-support/test-support.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ tokens: true, ports: { first: 28440, last: 28449 }, manager: { capacity: 2 } });
});
afterAll(async () => {
  await t.close();
});

type User = 'alice' | 'bob' | 'vera' | 'ada';
const still = (id: string, user?: User) =>
  t.app.inject({ method: 'GET', url: `/api/stream/${id}/still`, headers: user ? bearer(user) : {} });

/** Starts a session of `app` for alice and waits until it is ready (or failed); returns its id. */
async function start(app: string): Promise<string> {
  const created = await t.app.inject({
    method: 'POST',
    url: '/api/stream',
    headers: bearer('alice'),
    payload: { id: app, profile: 'default' },
  });
  const id = created.json().id as string;
  await waitFor('the session to start', () => ['ready', 'failed'].includes(t.manager.get(id)?.state ?? ''));
  return id;
}

/** The smallest JPEG-like file: the route serves its bytes as they are. */
const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4, 0xff, 0xd9]);

describe('GET /api/stream/{id}/still', () => {
  it('tells the application where to keep its still, and removes it when the session ends', async () => {
    const id = await start('usd-viewer');
    const file = stillPath(stillDirOf(t.dataDir), id);
    // The application was told where, in a directory only the service's user may read.
    const pid = t.manager.get(id)?.pid as number;
    expect((await environmentOf(pid)).STREAMGATE_STILL_PATH).toBe(file);
    expect((await stat(stillDirOf(t.dataDir))).mode & 0o777).toBe(0o700);

    await writeFile(file, jpeg, { mode: 0o600 });
    expect((await still(id, 'alice')).statusCode).toBe(200);

    // Ending the session removes its still.
    const ended = await t.app.inject({
      method: 'DELETE',
      url: `/api/stream/${id}`,
      headers: bearer('alice'),
    });
    expect(ended.statusCode).toBe(204);
    expect(existsSync(file)).toBe(false);
    expect((await still(id, 'alice')).statusCode).toBe(404);
  });

  it('removes the still of an application that dies', async () => {
    const id = await start('usd-viewer');
    const file = stillPath(stillDirOf(t.dataDir), id);
    // Written while it runs, as the application's ffmpeg would.
    await writeFile(file, jpeg, { mode: 0o600 });
    expect((await still(id, 'alice')).statusCode).toBe(200);
    process.kill(-(t.manager.get(id)?.pid as number), 'SIGKILL');
    await waitFor('the session to fail', () => t.manager.get(id)?.state === 'failed');
    await waitFor('the still to go', () => !existsSync(file));
    expect((await still(id, 'alice')).statusCode).toBe(410);
  });
});
