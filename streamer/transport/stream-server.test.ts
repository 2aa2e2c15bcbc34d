/**
 * The order of an application's start (stream-server.ts): the service's probe is answered before the
 * application's own preparation holds up the event loop, and a preparation that fails fails the start.
 * The wait for the probe is on fake time (setTimeout alone is faked: sockets and the event loop watch run as
 * they do), so a minute passes at once and nothing is proved by sleeping.
 */
import { connect } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { freePort, freeUdpPort } from '../../test-support/ports.ts';
import { Scope } from '../runtime/scope.ts';
import { StreamServer, type StreamApplication, type StreamServerOptions } from './stream-server.ts';

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
    size: () => (events.push('probe'), SIZE),
    prepare: () => (events.push('prepare'), prepare()),
  };
}

/**
 * Resolves once the port takes a connection (without a request: no probe). A refusal comes back at once, so the
 * loop needs no timer; once the port listens, the server has armed its wait for the probe.
 */
async function listening(port: number): Promise<void> {
  for (;;) {
    const accepted = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => resolve(true));
      socket.once('error', () => resolve(false));
      socket.once('connect', () => socket.destroy());
    });
    if (accepted) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** The service's probe: GET /health. */
async function probe(port: number): Promise<number> {
  return (await fetch(`http://127.0.0.1:${port}/health`)).status;
}

describe("an application's start", () => {
  let scope = new Scope();
  /** Makes a stream server in the test's scope and listens, as an application's start does. */
  const startStreamServer = (given: StreamServerOptions, app: StreamApplication) =>
    scope.run(async () => {
      const server = new StreamServer(scope, given, app);
      await server.listen();
      return server;
    });
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    scope = new Scope();
  });
  afterEach(async () => {
    vi.useRealTimers();
    await scope.dispose();
  });

  it("waits for the service's probe before its preparation, however late the probe comes", async () => {
    const events: string[] = [];
    const given = await options(60_000);
    const started = startStreamServer(
      given,
      application(events, () => undefined),
    );
    await listening(given.signalingPort);
    // A second short of the wait: a preparation on any shorter delay would have run by now.
    await vi.advanceTimersByTimeAsync(59_000);
    expect(events).toEqual([]);
    expect(await probe(given.signalingPort)).toBe(200);
    await started;
    expect(events).toEqual(['probe', 'prepare']);
  });

  it('prepares without a probe once the wait is over (the application run alone)', async () => {
    const events: string[] = [];
    const given = await options(60_000);
    const started = startStreamServer(
      given,
      application(events, () => undefined),
    );
    await listening(given.signalingPort);
    expect(events).toEqual([]);
    await vi.advanceTimersByTimeAsync(60_000);
    await started;
    expect(events).toEqual(['prepare']);
  });

  it('starts at once without waiting for a probe when the application has no preparation', async () => {
    const events: string[] = [];
    const { prepare: _none, ...withoutPreparation } = application(events, () => undefined);
    // A wait of a minute would outlast the test's time-out: the display host starts its encoder right after.
    await startStreamServer(await options(60_000), withoutPreparation);
    expect(events).toEqual([]);
  });

  it('fails with the preparation, and closes its port', async () => {
    const given = await options(60_000);
    const failing = () => {
      throw new Error('no canvas library');
    };
    const started = startStreamServer(given, application([], failing));
    await listening(given.signalingPort);
    await vi.advanceTimersByTimeAsync(60_000);
    await expect(started).rejects.toThrow('no canvas library');
    await expect(fetch(`http://127.0.0.1:${given.signalingPort}/health`)).rejects.toThrow();
  });
});
