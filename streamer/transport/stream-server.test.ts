/**
 * The order of an application's start (stream-server.ts): the service's probe is answered before the
 * application's own preparation holds up the event loop, and a preparation that fails fails the start.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, freeUdpPort } from '../../test-support/ports.ts';
import { startStreamServer, type StreamApplication, type StreamServer } from './stream-server.ts';

const SIZE = { width: 320, height: 240, fps: 30 };

async function options(probeWaitMs: number) {
  return {
    sessionId: 'order-test',
    host: '127.0.0.1',
    signalingPort: await freePort(),
    mediaPort: await freeUdpPort(),
    fps: SIZE.fps,
    maxViewers: 1,
    allowedOrigins: null,
    viewerSecret: null,
    probeWaitMs,
  };
}

function application(events: string[], prepare: () => void): StreamApplication {
  return {
    queries: new Set(),
    onInput: () => undefined,
    onMessage: () => [],
    readiness: () => (events.push('probe'), SIZE),
    prepare: () => (events.push('prepare'), prepare()),
  };
}

/** GET /health until the port answers. */
async function probe(port: number): Promise<number> {
  for (;;) {
    try {
      return (await fetch(`http://127.0.0.1:${port}/health`)).status;
    } catch {
      await sleep(5);
    }
  }
}

describe("an application's start", () => {
  let server: StreamServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("waits for the service's probe before its preparation, however late the probe comes", async () => {
    const events: string[] = [];
    const given = await options(60_000);
    const started = startStreamServer(
      given,
      application(events, () => undefined),
    );
    // Well past the moment the port listens: a preparation on a fixed delay would have run by now.
    await sleep(300);
    expect(events).toEqual([]);
    expect(await probe(given.signalingPort)).toBe(200);
    server = await started;
    expect(events).toEqual(['probe', 'prepare']);
  });

  it('prepares without a probe once the wait is over (the application run alone)', async () => {
    const events: string[] = [];
    server = await startStreamServer(
      await options(20),
      application(events, () => undefined),
    );
    expect(events).toEqual(['prepare']);
  });

  it('starts at once without waiting for a probe when the application has no preparation', async () => {
    const events: string[] = [];
    const { prepare: _none, ...withoutPreparation } = application(events, () => undefined);
    // A wait of a minute would outlast the test's time-out: the display host starts its encoder right after.
    server = await startStreamServer(await options(60_000), withoutPreparation);
    expect(events).toEqual([]);
  });

  it('fails with the preparation, and closes its port', async () => {
    const given = await options(0);
    const failing = () => {
      throw new Error('no canvas library');
    };
    await expect(startStreamServer(given, application([], failing))).rejects.toThrow('no canvas library');
    await expect(fetch(`http://127.0.0.1:${given.signalingPort}/health`)).rejects.toThrow();
  });
});
