import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { probeHealth, probeHost } from './health-probe.ts';

// A port of the system's choosing: it cannot collide with anything. Port 28140 has nothing listening.
let PORT = 28140;
let server: Server | undefined;

function serve(status: number, body: string): Promise<void> {
  server = createServer((_, response) => response.writeHead(status).end(body));
  return new Promise((resolve) =>
    server!.listen(0, '127.0.0.1', () => {
      const address = server!.address();
      PORT = typeof address === 'object' && address ? address.port : 0;
      resolve();
    }),
  );
}

afterEach(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

describe('probeHealth', () => {
  it('is ready on 200 and reads the viewer count', async () => {
    await serve(200, '{"viewers": 3}');
    expect(await probeHealth('127.0.0.1', PORT)).toEqual({ ok: true, viewers: 3 });
  });

  it('is ready on 200 without a usable viewer count', async () => {
    await serve(200, 'fine');
    expect(await probeHealth('127.0.0.1', PORT)).toEqual({ ok: true, viewers: undefined });
  });

  it('is not ready on another status or when nothing listens', async () => {
    expect(await probeHealth('127.0.0.1', PORT)).toEqual({ ok: false });
    await serve(503, '{"viewers": 0}');
    expect(await probeHealth('127.0.0.1', PORT)).toEqual({ ok: false });
  });

  it('reaches a wildcard bind on the loopback', () => {
    expect(probeHost('0.0.0.0')).toBe('127.0.0.1');
    expect(probeHost('10.1.2.3')).toBe('10.1.2.3');
  });
});
