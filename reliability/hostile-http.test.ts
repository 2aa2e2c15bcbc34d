/**
 * Hostile HTTP against a real service process: path traversal never reaches a file outside the portal,
 * CR/LF in paths and queries never becomes a header, oversized requests are refused, and slow clients
 * (slowloris headers, a trickled body) are cut off by the service's time-outs.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TIMEOUTS } from '../server/app.ts';
import { standInCatalog } from '../test-support/test-support.ts';
import { raw, trickle } from './support/http.ts';
import { figure } from './support/profile.ts';
import { removeWorkDir, startService, type Service } from './support/service.ts';

const PORT = 18220;
const SECRET = 'secret-outside-the-portal-7f3a';
let service: Service;

beforeAll(async () => {
  const workDir = await mkdtemp(path.join(tmpdir(), 'streamgate-rel-'));
  const portal = path.join(workDir, 'portal');
  await mkdir(path.join(portal, 'assets'), { recursive: true });
  await writeFile(path.join(portal, 'index.html'), '<!doctype html><title>Streamgate</title>');
  await writeFile(path.join(portal, 'assets', 'app.js'), 'console.log(1);');
  // Beside the portal, and one level up: what a traversal would try to read.
  await writeFile(path.join(workDir, 'secret.txt'), SECRET);
  await writeFile(path.join(workDir, 'portal-secret.txt'), SECRET);
  service = await startService({
    port: PORT,
    sessionPorts: { first: 25200, last: 25209 },
    catalog: standInCatalog(),
    workDir,
    env: { STREAMGATE_STATIC_DIR: portal, LOG_LEVEL: 'warn' },
  });
});
afterAll(async () => {
  await service?.stop();
  if (service) await removeWorkDir(service.workDir);
});

const get = (target: string, headers = '') =>
  raw(PORT, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}Connection: close\r\n\r\n`);

function headersOf(answer: string): string {
  return answer.split('\r\n\r\n')[0] ?? '';
}

describe('hostile HTTP', () => {
  it('never serves a file outside the portal, whatever the traversal', async () => {
    const dots = [
      '..',
      '%2e%2e',
      '%2E%2E',
      '.%2e',
      '%2e.',
      '..%2f..',
      '..%2F..',
      '%252e%252e',
      '..%5c..',
      '..\\..',
    ];
    const seps = ['/', '%2f', '%2F', '%5c', '//'];
    const targets = ['secret.txt', 'portal-secret.txt', 'etc/passwd', 'proc/self/environ'];
    const prefixes = ['/', '/api/', '/assets/', '/sessions/', '/api/cfg/apps/', '/api/docs/static/'];
    const paths: string[] = [];
    for (const prefix of prefixes)
      for (const dot of dots)
        for (const sep of seps)
          for (const target of targets) paths.push(`${prefix}${dot}${sep}${dot}${sep}${dot}${sep}${target}`);
    paths.push(
      '/..',
      '/../',
      '/%00../secret.txt',
      '/assets/app.js%00.html',
      '/index.html/..%2f..%2fsecret.txt',
    );
    let served = 0;
    for (const target of paths) {
      const answer = await get(target);
      expect(answer, target).toMatch(/^HTTP\/1\.1 \d{3}/);
      expect(answer, target).not.toContain(SECRET);
      expect(answer, target).not.toMatch(/root:x:0:0|STREAMGATE_/);
      if (answer.startsWith('HTTP/1.1 200')) served++;
    }
    figure('path traversal requests tried', paths.length);
    figure('of which answered 200 (the portal page)', served);
  });

  it('never turns CR/LF of a path or query into a header', async () => {
    const injections = [
      '%0d%0aX-Injected:%201',
      '%0D%0ASet-Cookie:%20x=1',
      '%0aX-Injected:1',
      '%E5%98%8A%E5%98%8DX-Injected:1',
    ];
    const places = [
      (s: string) => `/${s}`,
      (s: string) => `/assets${s}`,
      (s: string) => `/sessions/${s}`,
      (s: string) => `/?q=${s}`,
      (s: string) => `/api/stream/${s}`,
      (s: string) => `/api/cfg/apps/${s}`,
      (s: string) => `/api/cfg/apps?tags=${s}`,
      (s: string) => `/api/stream?offset=${s}`,
      (s: string) => `/api/docs${s}`,
    ];
    let tried = 0;
    for (const place of places) {
      for (const injection of injections) {
        const answer = await get(place(injection));
        tried++;
        const head = headersOf(answer).toLowerCase();
        expect(head, place(injection)).toMatch(/^http\/1\.1 \d{3}/);
        expect(head).not.toContain('x-injected');
        expect(head).not.toMatch(/set-cookie: x=1/);
      }
    }
    figure('header injection requests tried', tried);
  });

  it('refuses oversized requests', async () => {
    const big = JSON.stringify({
      id: 'usd-viewer',
      profile: 'default',
      version: 'latest',
      arguments: { pad: 'x'.repeat(70_000) },
    });
    const declared = await raw(
      PORT,
      `POST /api/stream HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: ${big.length}\r\nConnection: close\r\n\r\n${big}`,
    );
    expect(declared).toMatch(/^HTTP\/1\.1 413/);
    expect(declared).toContain('"detail"');
    const lying = await raw(
      PORT,
      'POST /api/stream HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 99999999999\r\nConnection: close\r\n\r\n{}',
    );
    expect(lying).toMatch(/^HTTP\/1\.1 413/);
    const chunk = big.slice(0, 40_000);
    const chunked = await raw(
      PORT,
      'POST /api/stream HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n' +
        `${chunk.length.toString(16)}\r\n${chunk}\r\n${chunk.length.toString(16)}\r\n${chunk}\r\n0\r\n\r\n`,
    );
    expect(chunked).toMatch(/^HTTP\/1\.1 413/);
    const longUrl = await get(`/api/cfg/apps/${'a'.repeat(100_000)}`);
    expect(longUrl).toMatch(/^HTTP\/1\.1 (414|431|400)/);
    const bigHeader = await get('/api/cfg/apps', `X-Big: ${'a'.repeat(40_000)}\r\n`);
    expect(bigHeader).toMatch(/^HTTP\/1\.1 431/);
    const manyHeaders = await get(
      '/api/cfg/apps',
      Array.from({ length: 2_000 }, (_, i) => `X-Header-Number-${i}: value-value-value\r\n`).join(''),
    );
    expect(manyHeaders).toMatch(/^HTTP\/1\.1 431/);
    figure('oversized requests refused', 6);
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
  });

  it('cuts off a client that sends its headers a byte a second, and one that trickles its body', async () => {
    const headers = 'GET /api/cfg/apps HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ' + 'a'.repeat(200);
    const body =
      'POST /api/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n';
    const [slowHeaders, slowBody] = await Promise.all([
      trickle(PORT, headers.split(''), 1_000),
      trickle(PORT, [body, ...'{"id":"usd-viewer"'.padEnd(200, ' ').split('')], 1_000),
    ]);
    figure(
      'slowloris (headers at 1 byte/s) cut off after',
      (slowHeaders.closedAfterMs / 1000).toFixed(1),
      's',
    );
    figure('trickled body (1 byte/s) cut off after', (slowBody.closedAfterMs / 1000).toFixed(1), 's');
    // The service closed them, well before the clients ran out of bytes to send.
    expect(slowHeaders.piecesSent).toBeLessThan(headers.length);
    expect(slowBody.piecesSent).toBeLessThan(201);
    // The bounds the service sets, plus the interval at which Node checks them and a margin for a busy machine.
    expect(slowHeaders.closedAfterMs).toBeLessThan(TIMEOUTS.headersMs + TIMEOUTS.checkEveryMs + 10_000);
    expect(slowBody.closedAfterMs).toBeLessThan(TIMEOUTS.requestMs + TIMEOUTS.checkEveryMs + 10_000);
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
  });
});
