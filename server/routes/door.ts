/**
 * WHEP through the service (CONTRACT §21): `POST /stream/{id}/whep` and the viewer's `DELETE`, on the service's
 * own origin, forwarded to the session's application wherever its runner placed it. The viewer ticket in
 * `Authorization: Bearer` is the application's to check, as on its own port, so a watch link plays through the
 * door without a user token. The answer comes back with the media door's candidate and the TURN relays as
 * `Link` headers (RFC 9725 §4.4). Refusals are plain text, as the application's are, so that a WHEP client reads
 * both alike.
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { contractRoute } from '../http/contract.ts';
import { RateLimiter } from '../http/rate-limit.ts';
import type { SessionManager } from '../sessions/types.ts';
import type { Door } from '../door/door.ts';
import { linkHeaders } from '../door/turn-credentials.ts';
import { placement, signalingUrl } from './app-place.ts';

/** The application's own limit on an offer (streamer/transport/signaling.ts). */
export const DOOR_MAX_BODY_BYTES = 64 * 1024;
/** The application must answer within this; an offer is answered in tens of milliseconds. */
const FORWARD_TIMEOUT_MS = 10_000;
/**
 * Offers per caller's address: enough for a page of viewers reconnecting, few enough that guessing tickets
 * through the door is slow (each guess is one offer).
 */
export const DOOR_RATE = { perMinute: 120, burst: 20 };

export interface DoorRoutesOptions {
  manager: SessionManager;
  door: Door;
  publicHost: string;
  /** The clock of the rate limit, for tests. */
  now?: () => number;
}

/** A refusal in words, as the application writes its own. */
function refuse(reply: FastifyReply, status: number, text: string, headers: Record<string, string> = {}) {
  return reply
    .code(status)
    .headers({ 'cache-control': 'no-store', ...headers })
    .type('text/plain; charset=utf-8')
    .send(text);
}

export const doorRoutes: FastifyPluginAsync<DoorRoutesOptions> = async (app, options) => {
  const { manager, door, publicHost } = options;
  const limiter = new RateLimiter(DOOR_RATE, options.now);
  app.addContentTypeParser(
    'application/sdp',
    { parseAs: 'string', bodyLimit: DOOR_MAX_BODY_BYTES },
    (_request, body, done) => done(null, body),
  );
  const sweep = setInterval(() => door.sweep((id) => manager.get(id)?.state === 'ready'), 5_000);
  sweep.unref();
  app.addHook('onClose', async () => clearInterval(sweep));

  /** The session to forward to, or the refusal already sent. */
  function target(id: string, reply: FastifyReply) {
    const record = manager.get(id);
    if (!record) return void refuse(reply, 404, 'No session has this id; it may have ended.');
    // Its reason is for its owner, who reads it from the API with a token; a door is open to anyone.
    if (record.state === 'failed')
      return void refuse(reply, 410, 'The session failed; it cannot be watched.');
    const place = placement(record, publicHost);
    if (!place) {
      return void refuse(reply, 503, 'The session is not ready yet; try again in a moment.', {
        'retry-after': '2',
      });
    }
    return place;
  }

  async function forward(url: string, init: RequestInit): Promise<Response | undefined> {
    try {
      return await fetch(url, {
        ...init,
        redirect: 'manual',
        signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
      });
    } catch {
      return undefined;
    }
  }

  contractRoute(app, 'doorOffer', {
    bodyLimit: DOOR_MAX_BODY_BYTES,
    handler: async (request, reply) => {
      const wait = limiter.take(request.ip);
      if (wait > 0) {
        return refuse(reply, 429, 'Too many connection attempts from this address; wait a moment.', {
          'retry-after': String(wait),
        });
      }
      const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
      if (type !== 'application/sdp') return refuse(reply, 415, 'The offer must be sent as application/sdp.');
      const offer = typeof request.body === 'string' ? request.body : '';
      if (offer.trim() === '') return refuse(reply, 400, 'The body is empty; send an SDP offer.');
      const id = request.params.session_id;
      const place = target(id, reply);
      if (!place) return reply;
      const url = new URL(signalingUrl(place, '/whep'));
      if (request.query.mode === 'watch') url.searchParams.set('mode', 'watch');
      const auth = request.headers.authorization;
      const answer = await forward(url.toString(), {
        method: 'POST',
        headers: { 'content-type': 'application/sdp', ...(auth ? { authorization: auth } : {}) },
        body: offer,
      });
      if (!answer) {
        return refuse(
          reply,
          502,
          'The session’s application did not answer; it may be restarting. Try again.',
        );
      }
      const text = await answer.text();
      if (answer.status !== 201) {
        // The application's refusal, its status and words, and what a client needs to act on it.
        const headers: Record<string, string> = {};
        for (const name of ['retry-after', 'www-authenticate']) {
          const value = answer.headers.get(name);
          if (value) headers[name] = value;
        }
        return refuse(reply, answer.status, text, headers);
      }
      const viewerId = /^\/whep\/([A-Za-z0-9-]{1,64})$/.exec(answer.headers.get('location') ?? '')?.[1];
      const body = door.admit(id, viewerId, text, { host: place.host, port: place.ports.media });
      const servers = door.iceServers(id, request.headers.host);
      reply.headers({ 'cache-control': 'no-store', 'content-type': 'application/sdp' });
      if (viewerId) reply.header('location', `${request.url.split('?')[0]}/${viewerId}`);
      if (servers.length > 0) reply.header('link', linkHeaders(servers));
      return reply.code(201).send(Buffer.from(body));
    },
  });

  contractRoute(app, 'doorLeave', {
    handler: async (request, reply) => {
      const { session_id: id, viewer_id: viewerId } = request.params;
      const record = manager.get(id);
      const place = record && placement(record, publicHost);
      if (!place) {
        // The session and so its viewers are gone: nothing is left to stop.
        door.leave(viewerId);
        return refuse(reply, 404, 'No such viewer; its session may have ended.');
      }
      const auth = request.headers.authorization;
      const answer = await forward(signalingUrl(place, `/whep/${viewerId}`), {
        method: 'DELETE',
        headers: auth ? { authorization: auth } : {},
      });
      if (!answer) return refuse(reply, 502, 'The session’s application did not answer.');
      const text = await answer.text();
      if (answer.status === 204) {
        door.leave(viewerId);
        return reply.code(204).send();
      }
      return refuse(reply, answer.status, text);
    },
  });
};
