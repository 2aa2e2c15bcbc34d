import { PeerConnection, Video } from 'node-datachannel';
import { describe, expect, it } from 'vitest';
import type { AppMessage } from '../../protocol/data-channels.ts';
import { freeUdpPort } from '../../test-support/ports.ts';
import { until } from '../../test-support/until.ts';
import { Scope } from '../runtime/scope.ts';
import { StreamServer } from './stream-server.ts';

/** A real client (libdatachannel, as a browser would offer): recvonly VP8 and the two data channels. */
async function connect(base: string, mode: 'control' | 'watch') {
  const pc = new PeerConnection('client', { iceServers: [] });
  const video = new Video('0', 'RecvOnly');
  video.addVP8Codec(96);
  const track = pc.addTrack(video);
  const offer = new Promise<string>((resolve) => pc.onLocalDescription((text) => resolve(text)));
  const input = pc.createDataChannel('input');
  const received: AppMessage[] = [];
  const messages = pc.createDataChannel('messages');
  messages.onMessage((text) => void received.push(JSON.parse(String(text)) as AppMessage));
  const query = mode === 'watch' ? '?mode=watch' : '';
  const res = await fetch(`${base}/whep${query}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/sdp' },
    body: await offer,
  });
  expect(res.status).toBe(201);
  pc.setRemoteDescription(await res.text(), 'answer');
  // The track and channels are returned so that the test holds them: a native channel whose last JavaScript
  // reference is collected closes (the greeting then never arrives, as one run in CI found).
  return { pc, received, track, input, messages };
}

describe("a stream server and its viewers' messages channels", () => {
  it('tells each viewer who is here and lets the application greet it as its channel opens, and counts whether one controls', async () => {
    const counts: [number, number][] = [];
    const stream = new StreamServer(
      new Scope(),
      {
        sessionId: 'session',
        host: '127.0.0.1',
        signalingPort: 0,
        mediaPort: await freeUdpPort(),
        fps: 30,
        maxViewers: 4,
        allowedOrigins: null,
        viewerSecret: null,
      },
      { queries: new Set(), size: () => ({ width: 320, height: 240, fps: 30 }) },
    );
    stream.on('viewers', (count, controlling) => void counts.push([count, controlling]));
    stream.on('messagesOpen', (viewer) =>
      viewer.sendMessage({ event_type: 'hello', payload: { watchOnly: viewer.watchOnly } }),
    );
    await stream.listen();
    const base = `http://127.0.0.1:${stream.signalingPort}`;
    const controller = await connect(base, 'control');
    const watcher = await connect(base, 'watch');
    try {
      for (const [viewer, watchOnly] of [
        [controller, false],
        [watcher, true],
      ] as const) {
        await until('the greeting', () => viewer.received.some((m) => m.event_type === 'hello'), 10_000);
        // Who is here comes first, from the stream server, then the application's greeting (and then who is
        // here again, for the controller whose channel opened before the watcher came).
        expect(viewer.received.slice(0, 2)).toEqual([
          { event_type: 'people', payload: expect.objectContaining({ people: expect.any(Array) }) },
          { event_type: 'hello', payload: { watchOnly } },
        ]);
      }
      expect(counts).toEqual([
        [1, 1],
        [2, 1],
      ]);
    } finally {
      controller.pc.close();
      watcher.pc.close();
      await stream.close();
    }
  });
});
