/**
 * Security against a real service process with tokens: sessions are private to their owner on every
 * endpoint, unknown callers are refused, no token reaches the log, the portal carries its CSP, CORS
 * answers only configured origins, and the per-user rate limit holds one user back and not another.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { standInCatalog, TOKENS, TOKENS_YAML } from '../test-support/test-support.ts';
import { call } from './support/http.ts';
import { figure } from './support/profile.ts';
import { processesWith, removeWorkDir, startService, until, type Service } from './support/service.ts';

const ORIGIN = 'http://portal.example:5173';
let service: Service;
let sessionId = '';
let checks = 0;

beforeAll(async () => {
  const workDir = await mkdtemp(path.join(tmpdir(), 'streamgate-rel-'));
  await mkdir(path.join(workDir, 'portal'));
  await writeFile(path.join(workDir, 'portal', 'index.html'), '<!doctype html><title>Streamgate</title>');
  service = await startService({
    port: 18210,
    sessionPorts: { first: 25300, last: 25309 },
    catalog: standInCatalog(),
    tokens: TOKENS_YAML,
    workDir,
    env: {
      STREAMGATE_STATIC_DIR: path.join(workDir, 'portal'),
      STREAMGATE_CORS_ORIGINS: ORIGIN,
      STREAMGATE_RATE_LIMIT: '6/min',
      STREAMGATE_RATE_BURST: '3',
      LOG_LEVEL: 'debug',
    },
  });
  const created = await call(`${service.api}/stream`, {
    method: 'POST',
    token: TOKENS.alice,
    body: { id: 'usd-viewer', profile: 'default', version: 'latest' },
  });
  expect([200, 202]).toContain(created.status);
  sessionId = created.body.id as string;
});
afterAll(async () => {
  await service?.stop();
  if (service) await removeWorkDir(service.workDir);
  figure('security checks made', checks);
});

describe('security', () => {
  it("refuses another user's session on every endpoint, and keeps it out of their list", async () => {
    const url = `${service.api}/stream/${sessionId}`;
    const attempts = [
      call(url, { token: TOKENS.bob }),
      call(url, { method: 'DELETE', token: TOKENS.bob }),
      call(`${service.api}/stream`, { method: 'DELETE', token: TOKENS.bob, body: { id: sessionId } }),
    ];
    for (const answer of await Promise.all(attempts)) {
      checks++;
      expect(answer.status).toBe(403);
      expect(answer.body).toEqual({ detail: 'This session belongs to someone else.' });
      expect(answer.text).not.toContain('routes');
    }
    const bobs = await call(`${service.api}/stream`, { token: TOKENS.bob });
    expect(bobs.body).toMatchObject({ count: 0, items: [] });
    // A viewer may not use sessions at all.
    expect((await call(url, { token: TOKENS.vera })).status).toBe(403);
    // Still there, still the owner's and the admin's.
    expect([200, 202]).toContain((await call(url, { token: TOKENS.alice })).status);
    expect([200, 202]).toContain((await call(url, { token: TOKENS.ada })).status);
    checks += 3;
  });

  it('answers a missing, malformed or unknown token with 403 Not authenticated', async () => {
    const headers: Record<string, string>[] = [
      {},
      { authorization: 'Bearer' },
      { authorization: 'Bearer wrong-token' },
      { authorization: `Basic ${Buffer.from(`alice:${TOKENS.alice}`).toString('base64')}` },
      { authorization: `Bearer ${TOKENS.alice}x` },
      { authorization: `Bearer ${TOKENS.alice.slice(0, -1)}` },
      { authorization: `Bearer ${'a'.repeat(5000)}` },
    ];
    for (const path of ['/cfg/apps', '/stream', `/stream/${sessionId}`]) {
      for (const h of headers) {
        const answer = await call(`${service.api}${path}`, { headers: h });
        checks++;
        expect(answer.status).toBe(403);
        expect(answer.body).toEqual({ detail: 'Not authenticated' });
      }
    }
  });

  it('gives the portal its Content-Security-Policy', async () => {
    for (const url of ['/', '/sessions/x', `/sessions/${sessionId}`]) {
      const answer = await call(`${service.url}${url}`);
      checks++;
      expect(answer.status).toBe(200);
      const csp = answer.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain('connect-src');
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('answers CORS only for the configured origin', async () => {
    const preflight = (origin: string) =>
      fetch(`${service.api}/stream`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization',
        },
      });
    expect((await preflight(ORIGIN)).headers.get('access-control-allow-origin')).toBe(ORIGIN);
    for (const origin of [
      'http://evil.example',
      'http://portal.example:5174',
      'null',
      `${ORIGIN}.evil.example`,
    ]) {
      checks++;
      expect((await preflight(origin)).headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  it('limits POST /stream per user with 429 and Retry-After, and another user is not limited', async () => {
    // alice used one request of her burst of 3 in beforeAll; bad bodies count too and start nothing.
    const bad = { id: 'no-such-app', profile: 'default', version: 'latest' };
    const post = (token: string) => call(`${service.api}/stream`, { method: 'POST', token, body: bad });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await post(TOKENS.alice)).status);
    expect(statuses).toEqual([422, 422, 429, 429]);
    const limited = await post(TOKENS.alice);
    checks++;
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.body.detail).toMatch(/try again in \d+ s/);
    expect((await post(TOKENS.bob)).status).toBe(422);
    expect((await post(TOKENS.ada)).status).toBe(422);
  });

  it('never writes a token to its log', async () => {
    // End the session so that its stop is logged too, then read everything the service wrote.
    expect(
      (await call(`${service.api}/stream/${sessionId}`, { method: 'DELETE', token: TOKENS.alice })).status,
    ).toBe(204);
    await until('the application to exit', () => processesWith(sessionId).length === 0);
    // The log is written asynchronously: wait for the line of that DELETE, the last request made.
    await until('the log of the last request', () =>
      service.output().includes(`"url":"/api/stream/${sessionId}","statusCode":204`),
    );
    const log = service.output();
    expect(log).toContain('"msg":"request"');
    for (const token of [...Object.values(TOKENS), 'wrong-token']) {
      checks++;
      expect(log).not.toContain(token);
    }
    expect(log.toLowerCase()).not.toContain('bearer');
  });
});
