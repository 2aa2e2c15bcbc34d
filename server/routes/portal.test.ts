import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test-support/test-support.ts';
import { loadDoorConfig } from '../door/door-config.ts';

let t: TestApp;
let portal: string;
beforeAll(async () => {
  portal = await mkdtemp(path.join(tmpdir(), 'streamgate-portal-'));
  await mkdir(path.join(portal, 'assets'));
  await writeFile(path.join(portal, 'index.html'), '<!doctype html><title>Streamgate</title>');
  await writeFile(path.join(portal, 'assets', 'app.js'), 'console.log(1);');
  await writeFile(
    path.join(portal, 'config.json'),
    '{"catalogUrl": "/api", "streamUrl": "/api", "signaling": "direct"}',
  );
  t = await startTestApp({
    ports: { first: 28280, last: 28289 },
    staticDir: portal,
    tokens: true,
    config: {
      corsOrigins: ['http://portal.example:5173'],
      door: loadDoorConfig({ STREAMGATE_SIGNALING: 'door' }),
    },
  });
});
afterAll(async () => {
  await t.close();
  await rm(portal, { recursive: true, force: true });
});

describe('the built portal', () => {
  it("serves config.json with the service's signaling setting (CONTRACT §21), the rest as the file says", async () => {
    const res = await t.app.inject('/config.json');
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json()).toEqual({ catalogUrl: '/api', streamUrl: '/api', signaling: 'door' });
  });

  it('serves index.html at / and for client-side routes, files as they are', async () => {
    for (const url of ['/', '/sessions/abc', '/apps/usd-viewer?tab=versions']) {
      const res = await t.app.inject(url);
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('<title>Streamgate</title>');
    }
    const asset = await t.app.inject('/assets/app.js');
    expect(asset.body).toBe('console.log(1);');
  });

  it('serves index.html for a page load of any client route, dots in its last segment included', async () => {
    const html = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
    for (const url of [
      '/apps/omni.usd_explorer',
      '/apps/usd-viewer/versions/1.2.0',
      '/apps/foo.js',
      '/launch?app=omni.usd_explorer&version=1.0.0%2Bbuild.5',
    ]) {
      const res = await t.app.inject({ url, headers: html });
      expect(res.statusCode, url).toBe(200);
      expect(res.body).toContain('<title>Streamgate</title>');
    }
    const asset = await t.app.inject({ url: '/assets/missing.js', headers: html });
    expect(asset.statusCode).toBe(404);
  });

  it('answers 404 for a missing asset, and JSON 404s under /api', async () => {
    expect((await t.app.inject('/assets/missing.js')).statusCode).toBe(404);
    expect((await t.app.inject({ url: '/logo.png', headers: { accept: 'image/*' } })).statusCode).toBe(404);
    const api = await t.app.inject('/api/unknown');
    expect(api.statusCode).toBe(404);
    expect(api.json()).toEqual({ detail: expect.any(String) });
    expect((await t.app.inject('/..%2F..%2Fetc%2Fpasswd')).body).not.toContain('root:');
  });

  it('allows the configured origin and no other', async () => {
    const preflight = (origin: string) =>
      t.app.inject({
        method: 'OPTIONS',
        url: '/api/stream',
        headers: { origin, 'access-control-request-method': 'POST' },
      });
    const allowed = await preflight('http://portal.example:5173');
    // A preflight carries no token; it must not be refused for that.
    expect(allowed.statusCode).toBeLessThan(300);
    expect(allowed.headers['access-control-allow-origin']).toBe('http://portal.example:5173');
    const other = await preflight('http://evil.example');
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it("lets the configured origin read the door's viewer resource and relays", async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/stream/${crypto.randomUUID()}/whep`,
      headers: { origin: 'http://portal.example:5173', 'content-type': 'application/sdp' },
      payload: 'v=0',
    });
    // No such session; what matters is that a cross-origin portal could read the headers of an answer.
    expect(res.statusCode).toBe(404);
    expect(res.headers['access-control-expose-headers']).toBe(
      'Location, Link, Retry-After, Content-Disposition',
    );
  });
});
