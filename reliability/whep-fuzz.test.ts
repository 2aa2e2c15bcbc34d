/**
 * Hostile input for the sample application: hundreds of malformed WHEP requests, garbage datagrams on
 * its media port and malformed data-channel messages. Afterwards it still answers /health, and a real
 * viewer still connects and is answered on its data channel.
 */
import { createSocket } from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGNALING_TIMEOUTS } from '../streamer/transport/signaling.ts';
import { raw, trickle } from './support/http.ts';
import { figure, sized } from './support/profile.ts';
import { startStreamer, type StreamerProcess } from './support/streamer.ts';
import { makeOffer, openViewer } from './support/whep-viewer.ts';
import { random, whepFuzzCases } from './support/whep-fuzz-cases.ts';

let app: StreamerProcess;

beforeAll(async () => {
  app = await startStreamer();
});
afterAll(async () => {
  await app?.stop();
});

async function stillServes(): Promise<void> {
  expect((await fetch(`${app.url}/health`)).status).toBe(200);
  const viewer = await openViewer(app.url);
  expect(viewer.status).toBe(201);
  expect(await viewer.ask('loadingStateQuery', 'loadingStateResponse')).toHaveProperty('payload');
  await viewer.close();
}

describe('hostile input for the application', () => {
  it('answers every malformed WHEP request with a 4xx or a proper answer, never a crash', async () => {
    const { sdp, pc } = await makeOffer();
    pc.close();
    const cases = whepFuzzCases(sdp, sized(500, 2_000));
    const statuses = new Map<string, number>();
    for (const fuzz of cases) {
      const answer = await raw(app.signalingPort, fuzz.request, 5_000);
      const status = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 'closed';
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      // A 5xx or a missing answer would be a defect; a closed connection is allowed only for what
      // the HTTP parser itself refuses (a bare CR, a NUL in a header).
      expect(status, `${fuzz.kind}: ${answer.slice(0, 200)}`).not.toMatch(/^5/);
      const location = /\r\nlocation: (\/whep\/[^\r\n]+)/i.exec(answer)?.[1];
      // Mutations that left a valid offer made viewers; each is sent away at once, as the application
      // takes only so many viewers at a time.
      if (status === '201' && location) await fetch(`${app.url}${location}`, { method: 'DELETE' });
    }
    figure('WHEP fuzz cases sent', cases.length);
    for (const [status, n] of [...statuses].sort()) figure(`WHEP fuzz answers ${status}`, n);
    expect(app.output()).not.toMatch(/uncaught|unhandled/i);
    await stillServes();
  });

  it('ignores garbage datagrams on its media port', async () => {
    const next = random(7);
    const socket = createSocket('udp4');
    const count = sized(2_000, 20_000);
    for (let i = 0; i < count; i++) {
      const bytes = Buffer.alloc(1 + Math.floor(next() * 1_400));
      for (let j = 0; j < bytes.length; j++) bytes[j] = Math.floor(next() * 256);
      // Make some look like STUN, DTLS and RTP, so that they get past the first demultiplexing byte.
      bytes[0] = [0x00, 0x01, 0x16, 0x17, 0x80, 0x90, bytes[0] ?? 0][i % 7] ?? 0;
      await new Promise<void>((resolve) => socket.send(bytes, app.mediaPort, '127.0.0.1', () => resolve()));
    }
    socket.close();
    figure('garbage datagrams sent to the media port', count);
    await stillServes();
  });

  it('ignores malformed data-channel messages and keeps answering', async () => {
    const viewer = await openViewer(app.url);
    const next = random(11);
    const bad: string[] = [
      '',
      'not json',
      '{',
      'null',
      '[]',
      '42',
      '"text"',
      '{"event_type": 5}',
      '{"event_type": null, "payload": null}',
      '{"event_type": "openStageRequest", "payload": "x"}',
      '{"event_type": "openStageRequest", "payload": {"url": {"a": 1}}}',
      '{"__proto__": {"polluted": true}, "event_type": "loadingStateQuery"}',
      `{"event_type": "${'x'.repeat(60_000)}"}`,
      `${'['.repeat(10_000)}${']'.repeat(10_000)}`,
      '{"type": "pointermove", "x": "NaN", "y": 1e400}',
      '{"type": "resize", "width": -1, "height": 99999999}',
      '{"type": "resize", "width": "1920", "height": null}',
      '{"type": "keydown", "key": "\u202e\u0000", "code": {}}',
      '{"type": "touchstart", "touches": "all"}',
      '{"type": "touchmove", "touches": [null, 1, {"id": "x"}]}',
      '\ud800',
    ];
    for (let i = 0; i < sized(200, 1_000); i++) {
      const length = Math.floor(next() * 300);
      bad.push(Array.from({ length }, () => String.fromCharCode(Math.floor(next() * 0xffff))).join(''));
    }
    for (const text of bad) {
      viewer.input.sendMessage(text);
      viewer.messages.sendMessage(text);
    }
    figure('malformed data-channel messages sent (each on both channels)', bad.length);
    expect(await viewer.ask('loadingStateQuery', 'loadingStateResponse')).toHaveProperty('payload');
    figure('answers the application sent on the messages channel meanwhile', viewer.received.length - 1);
    await viewer.close();
    await stillServes();
  });

  it('cuts off slow clients on the signaling port as the API does', async () => {
    const port = Number(new URL(app.url).port);
    const headers = 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ' + 'a'.repeat(200);
    const body =
      'POST /whep HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/sdp\r\nContent-Length: 500\r\n\r\n';
    const [slowHeaders, slowBody] = await Promise.all([
      trickle(port, headers.split(''), 1_000),
      trickle(port, [body, ...'v=0'.padEnd(200, ' ').split('')], 1_000),
    ]);
    figure(
      'signaling slowloris (headers at 1 byte/s) cut off after',
      (slowHeaders.closedAfterMs / 1000).toFixed(1),
      's',
    );
    figure(
      'signaling trickled body (1 byte/s) cut off after',
      (slowBody.closedAfterMs / 1000).toFixed(1),
      's',
    );
    expect(slowHeaders.piecesSent).toBeLessThan(headers.length);
    expect(slowBody.piecesSent).toBeLessThan(201);
    // Node checks the bounds every few seconds; a margin for a busy machine on top.
    expect(slowHeaders.closedAfterMs).toBeLessThan(SIGNALING_TIMEOUTS.headersMs + 15_000);
    expect(slowBody.closedAfterMs).toBeLessThan(SIGNALING_TIMEOUTS.requestMs + 15_000);
    await stillServes();
  });
});
