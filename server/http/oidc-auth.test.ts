/**
 * Sign-in with the identity provider through the app (CONTRACT §22): access tokens of a real OpenID provider
 * (test-support/oidc-issuer.ts) beside the tokens file, the contract's 403 for every bad one, the throttle of
 * wrong credentials, the portal's config.json and Content-Security-Policy, keys rotated and the issuer gone
 * while the service runs. No session is started.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { FAILED_AUTH_BURST } from './auth-throttle.ts';
import { KEYS_COOLDOWN_MS } from '../auth/oidc.ts';
import { signTicket } from '../../protocol/viewer-ticket.ts';
import { bearer, startTestApp, type TestApp } from '../../test-support/test-support.ts';
import {
  forgedTokens,
  startOidcIssuer,
  type OidcIssuer,
  type Person,
} from '../../test-support/oidc-issuer.ts';

// This file's ports: issuers on 28610-28612, sessions (none is started) 28620-28634.
const NOT_AUTHENTICATED = { detail: 'Not authenticated' };
const jwt = (token: string) => ({ authorization: `Bearer ${token}` });

/** A built portal's folder: its index.html and `config` as its config.json. */
async function builtPortal(config: object): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'streamgate-portal-'));
  await writeFile(path.join(dir, 'index.html'), '<!doctype html><title>Streamgate</title>');
  await writeFile(path.join(dir, 'config.json'), JSON.stringify(config));
  return dir;
}

describe('access tokens of the identity provider beside the tokens file', () => {
  let issuer: OidcIssuer;
  let tenant: OidcIssuer;
  let t: TestApp;
  let portal: string;
  const tokens = {} as Record<Person, string>;

  beforeAll(async () => {
    issuer = await startOidcIssuer({ port: 28610 });
    // Another tenant of the same provider: the same keys, another issuer.
    tenant = await startOidcIssuer({ port: 28611, keysOf: issuer });
    portal = await builtPortal({ catalogUrl: '/api', token: null });
    t = await startTestApp({
      tokens: true,
      ports: { first: 28620, last: 28624 },
      staticDir: portal,
      // Two sessions at once per person: the third POST says who the owner is.
      config: { oidc: issuer.settings(), rateLimit: { perMinute: 1, burst: 2 } },
    });
    tokens.alice = await issuer.accessToken('alice');
    tokens.root = await issuer.accessToken('root');
  });
  afterAll(async () => {
    await t.close();
    await Promise.all([issuer.stop(), tenant.stop(), rm(portal, { recursive: true, force: true })]);
  });

  it('lets people in by their access tokens, with the roles of their groups, and static tokens as before', async () => {
    const get = (url: string, headers: Record<string, string>) => t.app.inject({ url, headers });
    expect((await get('/api/cfg/apps', jwt(tokens.alice))).statusCode).toBe(200);
    expect((await get('/api/stream', jwt(tokens.alice))).statusCode).toBe(200);
    // root is an admin through the group streamgate-admins; alice is not.
    expect((await get('/api/admin/capacity', jwt(tokens.root))).statusCode).toBe(200);
    expect((await get('/metrics', jwt(tokens.root))).statusCode).toBe(200);
    expect((await get('/api/admin/capacity', jwt(tokens.alice))).statusCode).toBe(403);
    expect((await get('/api/cfg/apps', bearer('bob'))).statusCode).toBe(200);
    expect((await get('/api/admin/capacity', bearer('ada'))).statusCode).toBe(200);
    expect((await get('/api/cfg/apps', {})).json()).toEqual(NOT_AUTHENTICATED);
  });

  it("leaves a viewer ticket on a session's files to the route: the provider does not refuse it first", async () => {
    const id = crypto.randomUUID();
    const { ticket } = await signTicket(new Uint8Array(32), id, 'control', 60);
    const files = await t.app.inject({ url: `/api/stream/${id}/files`, headers: jwt(ticket) });
    expect([files.statusCode, files.json()]).toEqual([
      404,
      { detail: 'No session has this id; it may have ended.' },
    ]);
  });

  it('takes a static token and an access token of the same name for one person', async () => {
    const post = (headers: Record<string, string>) =>
      t.app.inject({
        method: 'POST',
        url: '/api/stream',
        headers,
        // An unknown application: the user's budget is taken before the body is checked, and nothing starts.
        payload: { id: 'no-such-app', profile: 'default', version: 'latest' },
      });
    expect((await post(bearer('alice'))).statusCode).toBe(422);
    expect((await post(jwt(tokens.alice))).statusCode).toBe(422);
    // alice's budget of two is spent, by both of her credentials; root's is his own.
    expect((await post(jwt(await issuer.accessToken('alice')))).statusCode).toBe(429);
    expect((await post(bearer('alice'))).statusCode).toBe(429);
    expect((await post(jwt(tokens.root))).statusCode).toBe(422);
  });

  it('refuses every bad token with the contract 403', async () => {
    const bad: Record<string, string> = {
      ...(await forgedTokens(issuer, 'root')),
      expired: await issuer.accessToken('alice', { expiredSecondsAgo: 120 }),
      'another audience': await issuer.accessToken('alice', { audience: 'another-api' }),
      'another issuer, signed with the same keys': await tenant.accessToken('root'),
    };
    const answers = await Promise.all(
      Object.entries(bad).map(async ([what, token], i) => {
        const answer = await t.app.inject({
          url: '/api/admin/capacity',
          headers: jwt(token),
          remoteAddress: `198.51.100.${i + 1}`,
        });
        return [what, answer.statusCode, answer.json()];
      }),
    );
    expect(answers).toEqual(Object.keys(bad).map((what) => [what, 403, NOT_AUTHENTICATED]));
  });

  it('counts refused access tokens against the address, like wrong static tokens', async () => {
    const forged = (await forgedTokens(issuer, 'alice'))['another key'] ?? '';
    const apps = (remoteAddress: string, headers: Record<string, string>) =>
      t.app.inject({ url: '/api/cfg/apps', remoteAddress, headers });
    for (let i = 0; i < FAILED_AUTH_BURST; i++) {
      expect((await apps('192.0.2.50', jwt(forged))).statusCode).toBe(403);
    }
    expect((await apps('192.0.2.50', jwt(forged))).statusCode).toBe(429);
    // Refused before it is looked at, a good token too; other addresses are not slowed.
    expect((await apps('192.0.2.50', jwt(tokens.alice))).statusCode).toBe(429);
    expect((await apps('192.0.2.51', jwt(tokens.alice))).statusCode).toBe(200);
  });

  it('gives the portal the sign-in settings in config.json, and lets its pages reach the issuer', async () => {
    const config = await t.app.inject('/config.json');
    expect(config.json()).toEqual({
      catalogUrl: '/api',
      token: null,
      auth: { issuer: issuer.issuer, client_id: 'streamgate-portal', scopes: 'openid profile' },
    });
    const policy = String(config.headers['content-security-policy']);
    expect(policy).toMatch(new RegExp(`connect-src [^;]*${issuer.issuer}`));
    expect(policy).toContain(`frame-src 'self' ${issuer.issuer}`);
  });
});

describe('the identity provider alone, its keys rotated and then gone while the service runs', () => {
  let issuer: OidcIssuer;
  let t: TestApp;
  let portal: string;

  beforeAll(async () => {
    issuer = await startOidcIssuer({ port: 28612 });
    portal = await builtPortal({ catalogUrl: '/api' });
    t = await startTestApp({
      ports: { first: 28625, last: 28629 },
      staticDir: portal,
      config: { oidc: issuer.settings() },
    });
  });
  afterAll(async () => {
    await t.close();
    await Promise.all([issuer.stop(), rm(portal, { recursive: true, force: true })]);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const apps = async (headers: Record<string, string>) =>
    (await t.app.inject({ url: '/api/cfg/apps', headers })).statusCode;

  it('takes no one without a token, and no static token without a tokens file', async () => {
    expect(await apps({})).toBe(403);
    expect(await apps(bearer('alice'))).toBe(403);
    expect(await apps(jwt(await issuer.accessToken('alice')))).toBe(200);
  });

  it('takes tokens of a new key after the issuer rotates its keys, without a restart', async () => {
    const before = await issuer.accessToken('alice');
    expect(await apps(jwt(before))).toBe(200);
    await issuer.rotateKeys();
    // Only the clock is fake: the service asks the issuer again once its last reading is 30 s old.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + KEYS_COOLDOWN_MS + 1_000 });
    expect(await apps(jwt(await issuer.accessToken('root')))).toBe(200);
    expect(await apps(jwt(before))).toBe(200);
  });

  it('keeps taking valid tokens when the issuer cannot be reached any more', async () => {
    const seen = await issuer.accessToken('alice');
    expect(await apps(jwt(seen))).toBe(200);
    await issuer.stop();
    expect(await apps(jwt(seen))).toBe(200);
    // Issued before the outage, never seen by the service: verified by the keys it read.
    expect(await apps(jwt(await issuer.accessToken('root')))).toBe(200);
    expect(await apps(jwt(await issuer.accessToken('alice', { expiredSecondsAgo: 120 })))).toBe(403);
  });
});

describe('config.json without an identity provider', () => {
  it('has no auth, as before', async () => {
    const portal = await builtPortal({ catalogUrl: '/api' });
    const t = await startTestApp({ ports: { first: 28630, last: 28634 }, staticDir: portal });
    try {
      const answer = await t.app.inject('/config.json');
      expect(answer.json()).toEqual({ catalogUrl: '/api' });
      expect(answer.headers['content-security-policy']).not.toContain('frame-src');
      // And every caller is anonymous, as before.
      expect((await t.app.inject('/api/admin/capacity')).statusCode).toBe(200);
    } finally {
      await t.close();
      await rm(portal, { recursive: true, force: true });
    }
  });
});
