import { randomUUID } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { PeerConnection, Video } from 'node-datachannel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeUdpPort } from '../../test-support/ports.ts';
import { answers, until } from '../../test-support/until.ts';
import { startStreamer, type Streamer } from '../sample/app.ts';
import { createSignalingServer } from './signaling.ts';
import { noDrops } from './viewer-traffic.ts';
import { parseLaunch } from '../../protocol/launch.ts';

/** What GET /health answers, as far as these tests read it. */
type Health = { viewers: number };

/** A real offer (recvonly VP8 video and the two data channels) made by libdatachannel as a client. */
async function makeOffer(): Promise<{ sdp: string; pc: PeerConnection }> {
  const pc = new PeerConnection('client', { iceServers: [] });
  const video = new Video('0', 'RecvOnly');
  video.addVP8Codec(96);
  pc.addTrack(video);
  const sdp = new Promise<string>((resolve) => pc.onLocalDescription((text) => resolve(text)));
  pc.createDataChannel('input');
  pc.createDataChannel('messages');
  return { sdp: await sdp, pc };
}

/** A 320x240 application on `mediaPort`, its signaling port left to the system. */
function smallOptions(mediaPort: number) {
  const options = parseLaunch([
    '--signaling-port',
    '1',
    '--media-port',
    String(mediaPort),
    '--width',
    '320',
    '--height',
    '240',
  ]);
  return { ...options, signalingPort: 0 };
}

/** Sends an SDP offer as a WHEP client does. */
function postOffer(base: string, sdp: string): Promise<Response> {
  return fetch(`${base}/whep`, { method: 'POST', headers: { 'Content-Type': 'application/sdp' }, body: sdp });
}

describe('the signaling port of a running application', () => {
  let streamer: Streamer;
  let base: string;
  let mediaPort: number;

  beforeAll(async () => {
    mediaPort = await freeUdpPort();
    streamer = await startStreamer(smallOptions(mediaPort));
    base = `http://127.0.0.1:${streamer.signalingPort}`;
    await until('the application to answer /health', () => answers(`${base}/health`));
  });

  afterAll(async () => {
    await streamer?.close();
  });

  it('reports ready with the stream size once frames are encoded', async () => {
    const res = await fetch(`${base}/health`);
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(await res.json()).toEqual({
      status: 'ready',
      viewers: 0,
      width: 320,
      height: 240,
      fps: 30,
      // Data-channel messages dropped from viewers (viewer-traffic.ts): none yet.
      dropped: noDrops(),
    });
    expect(streamer.encoderPid()).toBeGreaterThan(0);
  });

  it('answers a CORS preflight', async () => {
    const res = await fetch(`${base}/whep`, {
      method: 'OPTIONS',
      headers: { Origin: 'http://portal.example', 'Access-Control-Request-Method': 'POST' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-headers')).toMatch(/Content-Type/);
    expect(res.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
    expect(res.headers.get('access-control-expose-headers')).toMatch(/Location/);
  });

  it.each([
    ['a wrong content type', { 'Content-Type': 'application/json' }, '{"sdp":"v=0"}', 415],
    ['an empty body', { 'Content-Type': 'application/sdp' }, '', 400],
    ['text that is not SDP', { 'Content-Type': 'application/sdp' }, 'hello there', 400],
    ['SDP without media', { 'Content-Type': 'application/sdp' }, 'v=0\r\ns=-\r\n', 400],
    ['a body over 64 KiB', { 'Content-Type': 'application/sdp' }, `v=0\r\n${'a=x\r\n'.repeat(14_000)}`, 413],
  ])('refuses %s with a reason', async (_name, headers, body, status) => {
    const res = await fetch(`${base}/whep`, { method: 'POST', headers, body });
    expect(res.status).toBe(status);
    expect((await res.text()).length).toBeGreaterThan(5);
  });

  it('answers unknown paths, methods and viewers', async () => {
    expect((await fetch(`${base}/nowhere`)).status).toBe(404);
    expect((await fetch(`${base}/whep`)).status).toBe(405);
    expect(
      (await fetch(`${base}/whep/0b7e6f2c-1f7a-4d2e-9a51-5d1c0e7a9b11`, { method: 'DELETE' })).status,
    ).toBe(404);
  });

  it('answers a real offer with one host candidate on the media port, then stops that viewer', async () => {
    const { sdp, pc } = await makeOffer();
    try {
      const res = await postOffer(base, sdp);
      expect(res.status).toBe(201);
      expect(res.headers.get('content-type')).toBe('application/sdp');
      const location = res.headers.get('location') ?? '';
      expect(location).toMatch(/^\/whep\/[0-9a-f-]{36}$/);
      const answer = await res.text();
      const candidates = answer.split('\r\n').filter((l) => l.startsWith('a=candidate:'));
      expect(new Set(candidates)).toEqual(
        new Set([`a=candidate:1 1 UDP 2122317823 127.0.0.1 ${mediaPort} typ host`]),
      );
      expect(answer).toMatch(/a=rtpmap:96 VP8\/90000/);
      expect(answer).toMatch(/m=application/);
      expect(((await (await fetch(`${base}/health`)).json()) as Health).viewers).toBe(1);
      expect((await fetch(`${base}${location}`, { method: 'DELETE' })).status).toBe(204);
      // A goodbye that comes again, or after the connection closed, finds the viewer gone: still 204.
      expect((await fetch(`${base}${location}`, { method: 'DELETE' })).status).toBe(204);
      expect((await fetch(`${base}/whep/${randomUUID()}`, { method: 'DELETE' })).status).toBe(404);
      expect(((await (await fetch(`${base}/health`)).json()) as Health).viewers).toBe(0);
    } finally {
      pc.close();
    }
  });

  it('ignores garbage datagrams on the media port and keeps answering', async () => {
    const socket = createSocket('udp4');
    for (const bytes of [
      Buffer.alloc(0),
      Buffer.from('garbage'),
      Buffer.alloc(1500, 0xff),
      Buffer.from([0, 1, 0, 0]),
    ]) {
      await new Promise<void>((resolve) => socket.send(bytes, mediaPort, '127.0.0.1', () => resolve()));
    }
    socket.close();
    await sleep(200);
    const { sdp, pc } = await makeOffer();
    try {
      const res = await postOffer(base, sdp);
      expect(res.status).toBe(201);
      expect((await fetch(`${base}/health`)).status).toBe(200);
    } finally {
      pc.close();
    }
  });
});

describe('a viewer that never connects', () => {
  it('is dropped once nothing has come from it for the silence timeout', async () => {
    const mediaPort = await freeUdpPort();
    const streamer = await startStreamer(smallOptions(mediaPort), { silenceTimeoutMs: 600 });
    const { sdp, pc } = await makeOffer();
    try {
      const base = `http://127.0.0.1:${streamer.signalingPort}`;
      const res = await postOffer(base, sdp);
      expect(res.status).toBe(201);
      // The offer's maker never takes the answer: no ICE, no RTCP, nothing.
      await expect.poll(() => streamer.viewers(), { timeout: 10_000, interval: 100 }).toBe(0);
    } finally {
      pc.close();
      await streamer.close();
    }
  });
});

/**
 * Runs `use` against a signaling server on a free port whose application is not ready and grants `granted`
 * to every ticket (null: refuses them all); the server is closed afterwards.
 */
async function withStubServer(
  granted: 'control' | null,
  use: (port: number) => Promise<void>,
): Promise<void> {
  const server = createSignalingServer(
    {
      authorize: async () => granted,
      offer: () => Promise.reject(new Error('not used')),
      remove: () => 'unknown',
      health: () => null,
      stopSharing: async (ticket) => (granted && ticket === 'service.ticket' ? 2 : null),
    },
    { allowedOrigins: null },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await use((server.address() as AddressInfo).port);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

describe('the signaling server before the first frame', () => {
  it('answers /health with 503 until the application is ready', async () => {
    await withStubServer('control', async (port) => {
      const res = await fetch(`http://127.0.0.1:${port}/health`);
      expect(res.status).toBe(503);
      // An unexpected failure of the application is a 500 without details, not a crash.
      const post = await fetch(`http://127.0.0.1:${port}/whep`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/sdp' },
        body: 'v=0',
      });
      expect(post.status).toBe(500);
      expect(await post.text()).not.toMatch(/not used/);
    });
  });
});

describe('a refused offer', () => {
  it('is answered 401 with the connection closed, and says so, so that no next request is sent into it', async () => {
    await withStubServer(null, async (port) => {
      const answer = await new Promise<{ status?: number; connection?: string }>((resolve, reject) => {
        const req = request(
          {
            port,
            host: '127.0.0.1',
            method: 'POST',
            path: '/whep',
            agent: new Agent({ keepAlive: true }),
            headers: { 'Content-Type': 'application/sdp', Authorization: 'Bearer not.a.ticket' },
          },
          (res) => {
            res.resume();
            resolve({ status: res.statusCode, connection: res.headers.connection });
          },
        );
        req.on('error', reject);
        req.end('v=0\r\n');
      });
      // Without "close", a client that keeps connections alive reuses this one, which the server has ended:
      // its next request fails with "other side closed" (seen once in CI).
      expect(answer).toEqual({ status: 401, connection: 'close' });
    });
  });
});

describe("the service's stop of sharing", () => {
  it('answers POST /sharing/stop with the watchers dropped for a service ticket, and 401 or 405 otherwise', async () => {
    await withStubServer('control', async (port) => {
      const stop = (headers: Record<string, string>, method = 'POST') =>
        fetch(`http://127.0.0.1:${port}/sharing/stop`, { method, headers });
      const done = await stop({ Authorization: 'Bearer service.ticket' });
      expect(done.status).toBe(200);
      expect(await done.json()).toEqual({ watchers_dropped: 2 });
      // A viewer ticket, however good for watching, is not the service's.
      const refused = await stop({ Authorization: 'Bearer viewer.ticket' });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe('Bearer');
      expect((await stop({})).status).toBe(401);
      expect((await stop({ Authorization: 'Bearer service.ticket' }, 'GET')).status).toBe(405);
    });
  });
});
