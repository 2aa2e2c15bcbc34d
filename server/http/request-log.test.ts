import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import { TokenStore } from '../auth/tokens.ts';
import { parseCatalog } from '../catalog/load-catalog.ts';
import { bearer, standInCatalog, testConfig, TOKENS, TOKENS_YAML } from '../../test-support/test-support.ts';
import { ServiceSandbox } from '../runners/service-sandbox.ts';
import { testManager } from '../../test-support/session-support.ts';

const lines: Record<string, unknown>[] = [];
const sink = new Writable({
  write(chunk: Buffer, _encoding, callback) {
    for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
    callback();
  },
});

const manager = testManager({
  dataDir: 'unused-by-these-tests',
  portRange: { first: 28280, last: 28289 },
  capacity: 1,
  queueLimit: 1,
  publicHost: '127.0.0.1',
  readyWaitMs: 0,
  failedRetentionMs: 1_000,
  stopGraceMs: 1_000,
  sandbox: ServiceSandbox.unsandboxedForTests(),
});
const app = await buildApp(testConfig({ logLevel: 'info' }), {
  catalog: parseCatalog(standInCatalog(), 'catalog.yaml'),
  manager,
  tokens: TokenStore.parse(TOKENS_YAML, 'tokens.yaml'),
  logStream: sink,
});
beforeAll(() => {
  lines.length = 0;
});
afterAll(async () => {
  await app.close();
});

describe('request log', () => {
  it('writes one JSON line per request with its id, and never the token', async () => {
    await app.inject({ url: '/api/cfg/apps', headers: { authorization: `Bearer ${TOKENS.alice}` } });
    await app.inject({ url: '/api/cfg/apps', headers: { authorization: 'Bearer not-a-known-token' } });
    const requests = lines.filter((line) => line.msg === 'request');
    expect(requests).toHaveLength(2);
    expect(requests[0]).toMatchObject({
      method: 'GET',
      url: '/api/cfg/apps',
      statusCode: 200,
      user: 'alice',
    });
    expect(requests[1]).toMatchObject({ statusCode: 403 });
    expect(requests[0]?.reqId).not.toEqual(requests[1]?.reqId);
    const text = JSON.stringify(lines);
    expect(text).not.toContain(TOKENS.alice);
    expect(text).not.toContain('not-a-known-token');
  });

  it('writes the path and the names in its query, never their values', async () => {
    lines.length = 0;
    const secret = 'query-secret-0123456789';
    await app.inject({ url: `/api/stream?token=${secret}&limit=5&${secret}&&x=`, headers: bearer('alice') });
    await app.inject({ url: `/api/cfg/apps?tags=${secret}`, headers: bearer('alice') });
    const urls = lines.filter((line) => line.msg === 'request').map((line) => line.url);
    expect(urls).toEqual([
      '/api/stream?token=[redacted]&limit=[redacted]&[redacted]&&x=[redacted]',
      '/api/cfg/apps?tags=[redacted]',
    ]);
    expect(JSON.stringify(lines)).not.toContain(secret);
  });

  it('writes the line by the time the answer is in, with the time it took', async () => {
    lines.length = 0;
    await app.inject({ url: '/api/cfg/apps', headers: bearer('alice') });
    const requests = lines.filter((line) => line.msg === 'request');
    expect(requests).toHaveLength(1);
    expect(requests[0]?.durationMs).toBeGreaterThan(0);
    expect(requests[0]?.durationMs).toBeLessThan(1_000);
  });
});
