/**
 * The signaling port: WHEP (draft-ietf-wish-whep) over plain HTTP/1.1, plus /health. Checks every
 * request before the application sees it and answers each mistake with a clear status and reason.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { OfferError } from './sdp.ts';

/** Largest accepted request body. */
export const MAX_BODY_BYTES = 64 * 1024;

/** Readiness figures for GET /health. */
export interface Health {
  viewers: number;
  width: number;
  height: number;
  fps: number;
}

/** What the signaling server asks of the application. */
export interface WhepBackend {
  /** Answers an offer; throws OfferError for an offer that cannot be answered. */
  offer(sdp: string, watchOnly: boolean): Promise<{ id: string; answer: string }>;
  /** Stops one viewer; false when the id is unknown. */
  remove(id: string): boolean;
  /** Null until frames are being encoded. */
  health(): Health | null;
}

const cors = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, POST, DELETE, OPTIONS, PATCH',
  'Access-Control-Allow-Headers': 'Content-Type, Authorization, If-Match',
  'Access-Control-Expose-Headers': 'Location, Link, ETag',
  'Access-Control-Max-Age': '600',
};

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function send(res: ServerResponse, status: number, body: string, type: string, headers = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { ...cors, 'Content-Type': type, 'Cache-Control': 'no-store', ...headers });
  res.end(body);
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, JSON.stringify(value), 'application/json');
}

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

async function handle(backend: WhepBackend, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const method = req.method ?? 'GET';
  if (method === 'OPTIONS') {
    res.writeHead(204, { ...cors, 'Accept-Post': 'application/sdp' });
    res.end();
    return;
  }
  if (url.pathname === '/health') {
    if (method !== 'GET' && method !== 'HEAD') throw new HttpError(405, 'Use GET on /health.');
    const health = backend.health();
    if (!health) sendJson(res, 503, { status: 'starting' });
    else sendJson(res, 200, { status: 'ready', ...health });
    return;
  }
  if (url.pathname === '/whep') {
    if (method !== 'POST') throw new HttpError(405, 'Use POST with an SDP offer on /whep.');
    const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/sdp') throw new HttpError(415, 'The offer must be sent as application/sdp.');
    const sdp = await readBody(req);
    if (sdp.trim().length === 0) throw new HttpError(400, 'The body is empty; send an SDP offer.');
    const { id, answer } = await backend.offer(sdp, url.searchParams.get('mode') === 'watch');
    send(res, 201, answer, 'application/sdp', { Location: `/whep/${id}` });
    return;
  }
  const resource = /^\/whep\/([A-Za-z0-9-]{1,64})$/.exec(url.pathname);
  if (resource) {
    if (method === 'PATCH') throw new HttpError(405, 'Trickle ICE is not needed: the answer is complete.');
    if (method !== 'DELETE') throw new HttpError(405, 'Use DELETE to stop this viewer.');
    if (!backend.remove(resource[1] as string)) throw new HttpError(404, 'No such viewer.');
    res.writeHead(204, cors);
    res.end();
    return;
  }
  throw new HttpError(404, 'Not found. This application serves POST /whep and GET /health.');
}

/** Creates the signaling server; the caller listens. */
export function createSignalingServer(backend: WhepBackend): Server {
  const server = createServer((req, res) => {
    handle(backend, req, res).catch((err: unknown) => {
      if (err instanceof HttpError) send(res, err.status, err.message, 'text/plain; charset=utf-8');
      else if (err instanceof OfferError) send(res, 400, err.message, 'text/plain; charset=utf-8');
      else send(res, 500, 'The offer could not be answered.', 'text/plain; charset=utf-8');
      // A request body left unread would keep the connection busy; close it after a 413.
      if (err instanceof HttpError && err.status === 413) res.once('finish', () => req.destroy());
    });
  });
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });
  return server;
}
