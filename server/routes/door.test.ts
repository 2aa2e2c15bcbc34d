/**
 * WHEP through the door, against an in-memory session list and a stand-in signaling server on loopback that
 * answers as an application does: what is forwarded, what comes back, and what is refused before anything is.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Door } from '../door/door.ts';
import type { DoorConfig } from '../door/door-config.ts';
import type { MediaDoor } from '../door/media-door.ts';
import { errorHandler } from '../http/error-handler.ts';
import type { SessionManager, SessionRecord } from '../sessions/types.ts';
import { DOOR_RATE, doorRoutes } from './door.ts';

const ANSWER =
  'v=0\r\na=ice-ufrag:uf1\r\na=ice-pwd:pw1pw1pw1pw1pw1pw1pw1pw1\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=candidate:1 1 UDP 2122317823 127.0.0.1 27001 typ host\r\na=end-of-candidates\r\n';
const ID = '0b6f6c0e-3d7a-4c1e-9a8e-2f4f5d6c7b8a';

interface Seen {
  method: string;
  url: string;
  auth: string | undefined;
  origin: string | undefined;
  body: string;
}

let signaling: Server;
let signalingPort: number;
let seen: Seen[] = [];
/** What the stand-in application answers next. */
let next: { status: number; body: string; headers?: Record<string, string> } = { status: 201, body: ANSWER };

const read = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => resolve(body));
  });

beforeAll(async () => {
  signaling = createServer(async (req, res) => {
    seen.push({
      method: req.method ?? '',
      url: req.url ?? '',
      auth: req.headers.authorization,
      origin: req.headers.origin,
      body: await read(req),
    });
    const headers = { 'content-type': 'application/sdp', location: '/whep/viewer-1', ...next.headers };
    res.writeHead(req.method === 'DELETE' ? 204 : next.status, headers);
    res.end(req.method === 'DELETE' ? undefined : next.body);
  });
  await new Promise<void>((resolve) => signaling.listen(0, '127.0.0.1', resolve));
  signalingPort = (signaling.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((resolve) => signaling.close(() => resolve())));

const config: DoorConfig = {
  signaling: 'auto',
  turn: { kind: 'embedded', port: 3478, relayPorts: { first: 28000, last: 28999 } },
  mediaDoor: { host: '127.0.0.2', port: 3480 },
};

let sessions: Map<string, SessionRecord>;
let admitted: unknown[];
let forgotten: string[];
let app: FastifyInstance;
let clock = 0;

function record(state: SessionRecord['state']): SessionRecord {
  return {
    id: ID,
    owner: 'alice',
    appId: 'a',
    appName: 'A',
    version: '1',
    profileId: 'p',
    arguments: {},
    state,
    message: state === 'failed' ? 'it crashed' : '',
    createdAt: new Date(0).toISOString(),
    ports: { signaling: signalingPort, media: 27001 },
  };
}

beforeEach(async () => {
  seen = [];
  next = { status: 201, body: ANSWER };
  admitted = [];
  forgotten = [];
  sessions = new Map([[ID, record('ready')]]);
  const mediaDoor = {
    address: { host: '127.0.0.2', port: 3480 },
    admit: (viewer: unknown) => admitted.push(viewer),
    forget: (ufrag: string) => forgotten.push(ufrag),
    forgetSession: () => undefined,
    stats: () => ({ flows: 0, viewers: 0, packetsIn: 0, packetsOut: 0, bytesIn: 0, bytesOut: 0, dropped: 0 }),
  } as unknown as MediaDoor;
  const door = new Door(config, { kind: 'embedded', port: 3478, secret: 'sekrit' }, mediaDoor, '127.0.0.1');
  const manager = { get: (id: string) => sessions.get(id) } as unknown as SessionManager;
  app = Fastify();
  app.setErrorHandler(errorHandler);
  await app.register(doorRoutes, {
    prefix: '/api',
    manager,
    door,
    publicHost: '127.0.0.1',
    now: () => clock,
  });
  await app.ready();
  return () => app.close();
});

const offer = (
  headers: Record<string, string> = {},
  url = `/api/stream/${ID}/whep`,
  payload = 'v=0\r\noffer',
) =>
  app.inject({
    method: 'POST',
    url,
    headers: {
      'content-type': 'application/sdp',
      authorization: 'Bearer T1',
      host: 'portal.example.com:8080',
      ...headers,
    },
    payload,
  });

describe('POST /stream/{id}/whep through the door', () => {
  it('forwards the offer and the ticket to the application and answers with the door and the relays', async () => {
    const res = await offer(
      { origin: 'http://portal.example.com:8080' },
      `/api/stream/${ID}/whep?mode=watch`,
    );
    expect(res.statusCode).toBe(201);
    expect(seen).toEqual([
      { method: 'POST', url: '/whep?mode=watch', auth: 'Bearer T1', origin: undefined, body: 'v=0\r\noffer' },
    ]);
    expect(res.headers['content-type']).toBe('application/sdp');
    expect(res.headers.location).toBe(`/api/stream/${ID}/whep/viewer-1`);
    expect(res.body).toContain('a=candidate:1 1 UDP 2122317823 127.0.0.1 27001 typ host');
    expect(res.body).toContain('127.0.0.2 3480 typ host');
    const links = [res.headers.link].flat().join(', ');
    expect(links).toContain('<turn:portal.example.com:3478?transport=udp>; rel="ice-server"');
    expect(links).toContain('<turn:portal.example.com:3478?transport=tcp>; rel="ice-server"');
    expect(links).toMatch(
      /username="\d+:0b6f6c0e-3d7a-4c1e-9a8e-2f4f5d6c7b8a"; credential="[A-Za-z0-9+/=]{28}"/,
    );
    expect(admitted).toEqual([
      {
        sessionId: ID,
        ufrag: 'uf1',
        pwd: 'pw1pw1pw1pw1pw1pw1pw1pw1',
        target: { host: '127.0.0.1', port: 27001 },
      },
    ]);
  });

  it("passes the application's refusal on, in its words, and admits nobody", async () => {
    next = { status: 401, body: '', headers: { 'www-authenticate': 'Bearer' } };
    const res = await offer();
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    next = {
      status: 503,
      body: 'This session already has 4 viewers, its most.',
      headers: { 'retry-after': '10' },
    };
    const full = await offer();
    expect(full.statusCode).toBe(503);
    expect(full.body).toBe('This session already has 4 viewers, its most.');
    expect(full.headers['retry-after']).toBe('10');
    expect(full.headers.link).toBeUndefined();
    expect(admitted).toEqual([]);
  });

  it('refuses what the application would refuse without asking it', async () => {
    expect((await offer({ 'content-type': 'text/plain' })).statusCode).toBe(415);
    expect((await offer({}, undefined, '  ')).statusCode).toBe(400);
    expect((await offer({}, undefined, 'x'.repeat(64 * 1024 + 1))).statusCode).toBe(413);
    expect(seen).toEqual([]);
  });

  it('says why a session cannot be reached: unknown, failed, not ready', async () => {
    expect((await offer({}, `/api/stream/${crypto.randomUUID()}/whep`)).statusCode).toBe(404);
    sessions.set(ID, record('failed'));
    const failed = await offer();
    expect(failed.statusCode).toBe(410);
    expect(failed.body).toBe('The session failed; it cannot be watched.');
    sessions.set(ID, record('pending'));
    const pending = await offer();
    expect(pending.statusCode).toBe(503);
    expect(pending.headers['retry-after']).toBe('2');
    expect(seen).toEqual([]);
  });

  it('answers 502 in words when the application does not answer', async () => {
    sessions.set(ID, { ...record('ready'), ports: { signaling: 1, media: 27001 } });
    const res = await offer();
    expect(res.statusCode).toBe(502);
    expect(res.body).toMatch(/did not answer/);
  });

  it('throttles offers per address', async () => {
    let refused = 0;
    for (let i = 0; i < DOOR_RATE.burst + 5; i++) if ((await offer()).statusCode === 429) refused++;
    expect(refused).toBe(5);
    clock += 60_000;
    expect((await offer()).statusCode).toBe(201);
  });
});

describe('DELETE /stream/{id}/whep/{viewer} through the door', () => {
  it('forwards the goodbye with the ticket, and the media door forgets the viewer', async () => {
    await offer();
    const res = await app.inject({
      method: 'DELETE',
      url: `/api/stream/${ID}/whep/viewer-1`,
      headers: { authorization: 'Bearer T1' },
    });
    expect(res.statusCode).toBe(204);
    expect(seen.at(-1)).toMatchObject({ method: 'DELETE', url: '/whep/viewer-1', auth: 'Bearer T1' });
    expect(forgotten).toEqual(['uf1']);
  });

  it('answers 404 once the session is gone', async () => {
    sessions.clear();
    const res = await app.inject({ method: 'DELETE', url: `/api/stream/${ID}/whep/viewer-1` });
    expect(res.statusCode).toBe(404);
  });
});
