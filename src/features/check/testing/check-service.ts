/**
 * The service as the check's tests answer it: a catalog of two applications, a launch that is pending at first,
 * tickets with the service's relays, and a door that answers offers. Every session ended, every launch and every
 * viewer removed is recorded.
 */
import type { Session } from '../../../lib/api-client';
import { apps, pending, profiles, ready } from '../../../test/fixtures';
import { api, http, HttpResponse, server } from '../../../test/server';

/** The relays of the tickets: the embedded coturn's two URLs. */
export const RELAYS = [
  {
    urls: ['turn:portal.example.com:3478?transport=udp', 'turn:portal.example.com:3478?transport=tcp'],
    username: '1900000000:s',
    credential: 'c',
  },
];

/** An SDP answer as the door gives it. */
export const DOOR_ANSWER =
  'v=0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=candidate:1 1 udp 2130706431 127.0.0.1 47002 typ host\r\n';

export interface CheckServiceOptions {
  /** What GET /stream lists (none by default). */
  sessions?: Session[];
  /** GET /stream/{id} answers pending this many times before ready; Infinity: never ready. */
  pendingPolls?: number;
  /** The tickets' relays (RELAYS by default; [] for none). */
  relays?: typeof RELAYS;
}

/** Answers the check's requests; returns what it was asked to do. */
export function checkService({ sessions = [], pendingPolls = 1, relays = RELAYS }: CheckServiceOptions = {}) {
  const asked = {
    launched: [] as unknown[],
    ended: [] as string[],
    offers: [] as { id: string; mode: string | null; auth: string | null }[],
    viewersRemoved: [] as string[],
    tickets: [] as string[],
  };
  let polls = 0;
  server.use(
    http.get(api('/cfg/apps'), () => HttpResponse.json({ count: 2, items: apps.slice(0, 2) })),
    http.get(api('/stream'), () => HttpResponse.json({ count: sessions.length, items: sessions })),
    http.get(api('/cfg/apps/:id/versions'), () =>
      HttpResponse.json({ count: 2, items: [{ version: '1.0.0' }, { version: '2.0.0' }] }),
    ),
    http.get(api('/cfg/apps/:id/versions/:version/profiles'), () =>
      HttpResponse.json({ count: profiles.length, items: profiles }),
    ),
    http.post(api('/stream'), async ({ request }) => {
      asked.launched.push(await request.json());
      return HttpResponse.json(pending, { status: 202 });
    }),
    http.get(api('/stream/:id'), () =>
      polls++ < pendingPolls ? HttpResponse.json(pending, { status: 202 }) : HttpResponse.json(ready),
    ),
    http.delete(api('/stream/:id'), ({ params }) => {
      asked.ended.push(String(params.id));
      return new HttpResponse(null, { status: 204 });
    }),
    http.post(api('/stream/:id/tickets'), async ({ request }) => {
      const { scope } = (await request.json()) as { scope: string };
      asked.tickets.push(scope);
      return HttpResponse.json(
        {
          ticket: `${scope}-ticket`,
          scope,
          expires_at: '2030-01-01T00:00:00Z',
          ...(relays.length > 0 ? { ice_servers: relays } : {}),
        },
        { status: 201 },
      );
    }),
    http.post(api('/stream/:id/whep'), ({ params, request }) => {
      const url = new URL(request.url);
      const n = asked.offers.push({
        id: String(params.id),
        mode: url.searchParams.get('mode'),
        auth: request.headers.get('Authorization'),
      });
      return HttpResponse.text(DOOR_ANSWER, {
        status: 201,
        headers: {
          Location: `/api/stream/${String(params.id)}/whep/v${n}`,
          'Content-Type': 'application/sdp',
        },
      });
    }),
    http.delete(api('/stream/:id/whep/:viewer'), ({ params }) => {
      asked.viewersRemoved.push(String(params.viewer));
      return new HttpResponse(null, { status: 204 });
    }),
  );
  return asked;
}
