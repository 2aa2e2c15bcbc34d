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
  const route = { description: 'signaling', protocol: 'TCP', source_port: 1, destination_port: 1 };
  const ready = {
    id,
    status: { condition: 'ready', message: 'Ready', status: true },
    routes: { h: { routes: [route] } },
  };

  /** The session from GET, and `tickets` (status, body) from POST .../tickets. */
  function answerWithTickets(tickets: [number, unknown]) {
    const calls: { url: string; body: unknown }[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (input: Request) => {
        const isTicket = input.url.endsWith('/tickets');
        calls.push({ url: input.url, body: isTicket ? await input.json() : undefined });
        const [status, body] = isTicket ? tickets : [200, ready];
        return new Response(JSON.stringify(body), {
          status,
          headers: { 'Content-Type': 'application/json' },
        });
      }),
    );
    return calls;
  }

  it('gives the routes of a ready session, in either shape, and no ticket where none are issued', async () => {
    answerWithTickets([404, { detail: 'Not Found' }]);
    expect(await lookupSession(id)).toEqual({ status: 'ready', routes: { h: [route] } });
  });

  it('gives a fresh ticket of the scope asked for with the routes', async () => {
    const ticket = { ticket: 'a.b.c', scope: 'watch', expires_at: '2030-01-01T00:00:00Z' };
    const calls = answerWithTickets([201, ticket]);
    expect(await lookupSession(id, 'watch')).toEqual({
      status: 'ready',
      routes: { h: [route] },
      ticket: 'a.b.c',
    });
    expect(calls[1]).toEqual({
      url: expect.stringMatching(new RegExp(`/stream/${id}/tickets$`)),
      body: { scope: 'watch' },
    });
  });

  it('tries again later when the service refuses a ticket for a reason that may pass', async () => {
    answerWithTickets([503, { detail: 'Busy.' }]);
    await expect(lookupSession(id)).rejects.toMatchObject({ status: 503 });
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
    expect(await lookupSession(id)).toEqual({
      status: 'ended',
      reason: 'No session has this id: it does not exist, or it has ended.',
    });
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
