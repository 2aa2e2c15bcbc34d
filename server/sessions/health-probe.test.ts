import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { probeHealth, probeHost } from './health-probe.ts';

// This file's ports: 48140-48149.
const PORT = 48140;
let server: Server | undefined;

function serve(status: number, body: string): Promise<void> {
  server = createServer((_, response) => response.writeHead(status).end(body));
  return new Promise((resolve) => server!.listen(PORT, '127.0.0.1', resolve));
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
