/**
 * The signaling port: WHEP (draft-ietf-wish-whep) over plain HTTP/1.1, plus /health. Checks every
 * request before the application sees it and answers each mistake with a clear status and reason.
 * Who may connect is decided here (CONTRACT section 14): a viewer ticket in `Authorization: Bearer`,
 * an allowed Origin, and the application's viewer limit.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { bearerToken, type TicketScope } from '../../protocol/viewer-ticket.ts';
import { isFilesPath, type FilesRoutes } from '../files/routes.ts';
import { OfferError } from './sdp.ts';
import type { DropCounts } from './viewer-traffic.ts';

/** Largest accepted request body. */
export const MAX_BODY_BYTES = 64 * 1024;

/** Slow clients are cut off as the service's API cuts them off. */
export const SIGNALING_TIMEOUTS = {
  headersMs: 10_000,
  requestMs: 30_000,
  idleMs: 30_000,
  keepAliveMs: 5_000,
  checkEveryMs: 1_000,
};

/** Readiness figures for GET /health, told only to holders of a ticket. */
export interface Health {
  viewers: number;
  width: number;
  height: number;
  fps: number;
  /** Data-channel messages dropped from every viewer since the start: malformed, or over a viewer's rate. */
  dropped?: DropCounts;
}

/** What the signaling server asks of the application. */
export interface WhepBackend {
  /**
   * The scope a request may act with: from its ticket, or `control` for anyone when the application
   * runs without a secret. Null: no valid ticket.
   */
  authorize(ticket: string | null): Promise<TicketScope | null>;
  /**
   * Answers an offer; throws OfferError (400) or an error with `status` (503) it cannot serve. `peer`: the
   * address the request came from.
   */
  offer(
    sdp: string,
    scope: TicketScope,
    ticket: string | null,
    peer: string | undefined,
  ): Promise<{ id: string; answer: string }>;
  /** Stops one viewer if `ticket` made it: `unknown` when there is no such viewer, `other` when not. */
  remove(id: string, ticket: string | null): 'removed' | 'unknown' | 'other';
  /** Null until frames are being encoded. */
  health(): Health | null;
  /**
   * The service stops the sharing (POST /sharing/stop, a service ticket in `Authorization: Bearer`): the
   * watchers dropped, or null when the ticket is not the service's.
   */
  stopSharing(ticket: string | null): Promise<number | null>;
}

export interface SignalingOptions {
  /** Origins a browser may call from; null allows any (the application run alone). */
  allowedOrigins: readonly string[] | null;
  /** The session's files under /files (streamer/files/routes.ts); none: 404 there. */
  files?: FilesRoutes | null;
}

const CORS_BASE = {
  'Access-Control-Allow-Methods': 'GET, POST, DELETE, OPTIONS, PATCH',
  'Access-Control-Allow-Headers': 'Content-Type, Authorization, If-Match',
  'Access-Control-Expose-Headers': 'Location, Link, ETag, WWW-Authenticate',
  'Access-Control-Max-Age': '600',
};

/** A refusal with its status; `headers` add to the answer. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** RFC 9725 section 4.5: a missing, invalid, spent or revoked ticket learns nothing but that one is needed. */
export const unauthorized = () => new HttpError(401, '', { 'WWW-Authenticate': 'Bearer' });

/** Reads the body as text, refusing more than MAX_BODY_BYTES (413) without buffering the rest. */
function readBody(req: IncomingMessage): Promise<string> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES)
    return Promise.reject(new HttpError(413, 'The SDP offer is larger than 64 KiB.'));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new HttpError(413, 'The SDP offer is larger than 64 KiB.'));
        req.removeAllListeners('data');
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Creates the signaling server; the caller listens. */
export function createSignalingServer(backend: WhepBackend, options: SignalingOptions): Server {
  const allowed = options.allowedOrigins ? new Set(options.allowedOrigins) : null;

  /** CORS headers for this request's Origin: echoed when allowed, none when not. */
  function cors(req: IncomingMessage): Record<string, string> {
    const origin = req.headers.origin;
    if (!allowed) return { ...CORS_BASE, 'Access-Control-Allow-Origin': '*' };
    if (origin && allowed.has(origin))
      return { ...CORS_BASE, 'Access-Control-Allow-Origin': origin, Vary: 'Origin' };
    return { Vary: 'Origin' };
  }

  function send(
    req: IncomingMessage,
    res: ServerResponse,
    status: number,
    body: string,
    type: string,
    headers = {},
  ) {
    if (res.headersSent) return;
    res.writeHead(status, { ...cors(req), 'Content-Type': type, 'Cache-Control': 'no-store', ...headers });
    res.end(body);
  }

  async function handle(req: IncomingMessage, res: ServerResponse, unbound: () => void): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = req.method ?? 'GET';
    const origin = req.headers.origin;
    // A page of another site is refused outright, not only kept from reading the answer.
    if (allowed && origin !== undefined && !allowed.has(origin)) {
      throw new HttpError(403, 'This page may not connect to this application.');
    }
    if (method === 'OPTIONS') {
      res.writeHead(204, { ...cors(req), 'Accept-Post': 'application/sdp' });
      res.end();
      return;
    }
    if (isFilesPath(req.url)) {
      if (!options.files) throw new HttpError(404, 'This application keeps no files.');
      return options.files({ req, res, headers: cors(req), unbound });
    }
    const ticket = bearerToken(req.headers.authorization);
    if (url.pathname === '/health') {
      if (method !== 'GET' && method !== 'HEAD') throw new HttpError(405, 'Use GET on /health.');
      const health = backend.health();
      // Strangers learn only whether it is ready; figures (viewers, size) need a ticket.
      const figures = health && (await backend.authorize(ticket)) !== null ? health : {};
      if (!health) send(req, res, 503, JSON.stringify({ status: 'starting' }), 'application/json');
      else send(req, res, 200, JSON.stringify({ status: 'ready', ...figures }), 'application/json');
      return;
    }
    if (url.pathname === '/whep') {
      if (method !== 'POST') throw new HttpError(405, 'Use POST with an SDP offer on /whep.');
      const granted = await backend.authorize(ticket);
      if (granted === null) throw unauthorized();
      // A viewer may ask for less than its ticket grants, never for more.
      const scope = url.searchParams.get('mode') === 'watch' ? 'watch' : granted;
      const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
      if (type !== 'application/sdp') throw new HttpError(415, 'The offer must be sent as application/sdp.');
      const sdp = await readBody(req);
      if (sdp.trim().length === 0) throw new HttpError(400, 'The body is empty; send an SDP offer.');
      const { id, answer } = await backend.offer(sdp, scope, ticket, req.socket.remoteAddress);
      send(req, res, 201, answer, 'application/sdp', { Location: `/whep/${id}` });
      return;
    }
    if (url.pathname === '/sharing/stop') {
      // The service's call, never a person's: only a service ticket of this session is taken.
      if (method !== 'POST') throw new HttpError(405, 'Use POST on /sharing/stop.');
      const dropped = await backend.stopSharing(ticket);
      if (dropped === null) throw unauthorized();
      send(req, res, 200, JSON.stringify({ watchers_dropped: dropped }), 'application/json');
      return;
    }
    const resource = /^\/whep\/([A-Za-z0-9-]{1,64})$/.exec(url.pathname);
    if (resource) {
      if (method === 'PATCH') throw new HttpError(405, 'Trickle ICE is not needed: the answer is complete.');
      if (method !== 'DELETE') throw new HttpError(405, 'Use DELETE to stop this viewer.');
      const outcome = backend.remove(resource[1] as string, ticket);
      if (outcome === 'removed') {
        res.writeHead(204, cors(req));
        res.end();
        return;
      }
      // Only a holder of a valid ticket learns whether the viewer exists.
      if ((await backend.authorize(ticket)) === null) throw unauthorized();
      if (outcome === 'unknown') throw new HttpError(404, 'No such viewer.');
      throw new HttpError(403, 'Only the ticket that made this viewer can stop it.');
    }
    throw new HttpError(404, 'Not found. This application serves POST /whep and GET /health.');
  }

  const server = createServer(
    {
      headersTimeout: SIGNALING_TIMEOUTS.headersMs,
      // Kept per request instead (boundArrival), so that an admitted upload of the session's files is not cut.
      requestTimeout: 0,
      keepAliveTimeout: SIGNALING_TIMEOUTS.keepAliveMs,
      // Node checks the two bounds above this often (30 s by default, which would triple them).
      connectionsCheckingInterval: SIGNALING_TIMEOUTS.checkEveryMs,
    },
    (req, res) => {
      const unbound = boundArrival(req, res);
      handle(req, res, unbound).catch((err: unknown) => {
        const status =
          err instanceof HttpError ? err.status : err instanceof OfferError ? 400 : statusOf(err);
        const message = status === 500 ? 'The offer could not be answered.' : (err as Error).message;
        const headers = err instanceof HttpError ? err.headers : status === 503 ? { 'Retry-After': '5' } : {};
        // A request body left unread would keep the connection busy: it is closed after a refusal, and the
        // answer says so, or a client that keeps connections alive sends its next request into a closed one.
        const refused = status === 413 || status === 401 || status === 403;
        send(req, res, status, message, 'text/plain; charset=utf-8', {
          ...headers,
          ...(refused ? { Connection: 'close' } : {}),
        });
        if (refused) res.once('finish', () => req.destroy());
      });
    },
  );
  server.setTimeout(SIGNALING_TIMEOUTS.idleMs, (socket) => socket.destroy());
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });
  return server;
}

/**
 * Node's own bound on how long a request may take to arrive (`requestTimeout`) holds for every request of a server
 * alike: a whole request must be in within SIGNALING_TIMEOUTS.requestMs of its start, or its connection is closed.
 * It is kept here per request instead, so that an upload of the session's files, once admitted, may take as long as
 * it keeps sending (the idle timeout still cuts one that stops). Returns the function that lifts it.
 */
function boundArrival(req: IncomingMessage, res: ServerResponse): () => void {
  const timer = setTimeout(() => {
    if (req.complete) return;
    if (res.headersSent) return void req.socket.destroy();
    res.writeHead(408, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' });
    res.end('The request took too long to arrive.', () => req.socket.destroy());
  }, SIGNALING_TIMEOUTS.requestMs);
  timer.unref();
  const lift = () => clearTimeout(timer);
  req.once('end', lift);
  req.once('close', lift);
  return lift;
}

/** 503 for errors that say so (a full viewer list, a busy media port); 500 for anything else. */
function statusOf(err: unknown): number {
  const status = (err as { status?: unknown } | null)?.status;
  return status === 503 ? 503 : 500;
}
