import { afterEach, describe, expect, it, vi } from 'vitest';
import { lookupSession } from './lookup-session';

const id = '0b9d3f7e-5c1a-4d2b-9e8f-1a2b3c4d5e6f';

function answer(status: number, body: unknown) {
  vi.stubGlobal(
    'fetch',
    vi.fn(
      async () =>
        new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } }),
    ),
  );
}

afterEach(() => vi.unstubAllGlobals());

describe('lookupSession', () => {
  it('gives the routes of a ready session, in either shape', async () => {
    const route = { description: 'signaling', protocol: 'TCP', source_port: 1, destination_port: 1 };
    answer(200, {
      id,
      status: { condition: 'ready', message: 'Ready', status: true },
      routes: { h: { routes: [route] } },
    });
    expect(await lookupSession(id)).toEqual({ status: 'ready', routes: { h: [route] } });
  });

  it('says pending with the service message', async () => {
    answer(202, {
      id,
      status: { condition: 'pending', message: 'Starting USD Viewer 1.2.0', status: false },
    });
    expect(await lookupSession(id)).toEqual({ status: 'pending', message: 'Starting USD Viewer 1.2.0' });
  });

  it('says ended for 404 and for 410 with the reason', async () => {
    answer(404, { detail: 'No such session.' });
    expect(await lookupSession(id)).toEqual({ status: 'ended', reason: 'This session has ended.' });
    answer(410, { detail: 'The application exited.' });
    expect(await lookupSession(id)).toMatchObject({
      status: 'ended',
      reason: expect.stringContaining('exited'),
    });
  });

  it('rejects on other failures so that the player tries again', async () => {
    answer(500, { detail: 'Boom.' });
    await expect(lookupSession(id)).rejects.toMatchObject({ status: 500 });
  });
});
