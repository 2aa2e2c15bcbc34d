import { describe, expect, it } from 'vitest';
import { sessionId } from '../../test/fixtures';
import { api, http, HttpResponse, server } from '../../test/server';
import { createTicket } from './create-ticket';

function answerTickets(status: number, body: Record<string, unknown>): unknown[] {
  const asked: unknown[] = [];
  server.use(
    http.post(api('/stream/:id/tickets'), async ({ request, params }) => {
      asked.push({ id: params.id, body: await request.json() });
      return HttpResponse.json(body, { status });
    }),
  );
  return asked;
}

describe('createTicket', () => {
  it('gives a fresh ticket of the scope asked for', async () => {
    const ticket = { ticket: 'a.b.c', scope: 'watch', expires_at: '2030-01-01T00:00:00Z' };
    const asked = answerTickets(201, ticket);
    expect(await createTicket(sessionId, 'watch')).toEqual(ticket);
    expect(asked).toEqual([{ id: sessionId, body: { scope: 'watch' } }]);
  });

  it('gives none where the deployment issues no tickets (404, 405)', async () => {
    answerTickets(404, { detail: 'Not Found' });
    expect(await createTicket(sessionId, 'control')).toBeNull();
    answerTickets(405, { detail: 'Method Not Allowed' });
    expect(await createTicket(sessionId, 'control')).toBeNull();
  });

  it('rejects on a refusal that may pass, so that the player tries again', async () => {
    answerTickets(503, { detail: 'Busy.' });
    await expect(createTicket(sessionId, 'control')).rejects.toMatchObject({ status: 503 });
  });
});
