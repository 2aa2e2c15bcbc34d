import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test-support/test-support.ts';
import { contentSecurityPolicy } from './security-headers.ts';

let t: TestApp;
let portal: string;
beforeAll(async () => {
  portal = await mkdtemp(path.join(tmpdir(), 'streamgate-portal-'));
  await writeFile(path.join(portal, 'index.html'), '<!doctype html><title>Streamgate</title>');
  t = await startTestApp({
    ports: { first: 28310, last: 28319 },
    staticDir: portal,
    config: {
      publicHost: 'stream.example',
      cspConnect: ['https://relay.example:*'],
      corsOrigins: ['http://portal.example:5173'],
    },
    // The nodes of a cluster, as its runner gives them.
    connectSources: ['http://10.77.0.11:*'],
  });
});
afterAll(async () => {
  await t.close();
  await rm(portal, { recursive: true, force: true });
});

function directives(policy: unknown): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const part of String(policy).split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) map.set(name, values);
  }
  return map;
}

describe('security headers', () => {
  it("gives the portal a policy that allows only its own scripts and the applications of the public host and the runner's nodes", async () => {
    for (const url of ['/', '/sessions/x', '/index.html', '/missing.js']) {
      const res = await t.app.inject(url);
      const csp = directives(res.headers['content-security-policy']);
      expect(csp.get('script-src')).toEqual(["'self'"]);
      expect(csp.get('style-src')).toEqual(["'self'", "'unsafe-inline'"]);
      expect(csp.get('connect-src')).toEqual([
        "'self'",
        'http://stream.example:*',
        'https://stream.example:*',
        'https://relay.example:*',
        'http://10.77.0.11:*',
      ]);
      expect(csp.get('img-src')).toEqual(["'self'", 'data:', 'blob:']);
      expect(csp.get('media-src')).toEqual(["'self'", 'blob:']);
      expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['x-frame-options']).toBe('DENY');
    }
  });

  it('sends nosniff on API answers, errors included, without the portal policy', async () => {
    for (const url of ['/api/cfg/apps', '/api/unknown', '/api/stream/not-a-uuid']) {
      const res = await t.app.inject(url);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-security-policy']).toBeUndefined();
    }
  });

  it('brackets an IPv6 public host', () => {
    const csp = directives(contentSecurityPolicy({ publicHost: '::1', extraConnect: [] }));
    expect(csp.get('connect-src')).toContain('http://[::1]:*');
  });
});

describe('CORS', () => {
  const preflight = (origin: string) =>
    t.app.inject({
      method: 'OPTIONS',
      url: '/api/stream',
      headers: { origin, 'access-control-request-method': 'POST' },
    });

  it('allows a configured origin', async () => {
    const res = await preflight('http://portal.example:5173');
    expect(res.headers['access-control-allow-origin']).toBe('http://portal.example:5173');
  });

  it('gives any other origin no allow-origin, on preflights and on requests', async () => {
    for (const origin of ['http://evil.example', 'http://portal.example:5174', 'null']) {
      expect((await preflight(origin)).headers['access-control-allow-origin']).toBeUndefined();
      const res = await t.app.inject({ url: '/api/cfg/apps', headers: { origin } });
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    }
  });
});
