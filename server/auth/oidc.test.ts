/**
 * The verification of the identity provider's access tokens (CONTRACT §22) against a real OpenID provider
 * (test-support/oidc-issuer.ts): what it accepts, every token it must refuse, keys rotated and an issuer gone
 * after start, and the start-up sentences. No test waits: expired tokens are issued in the past, and the clock
 * is injected (or Date faked) where time must pass.
 */
import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { decodeJwt, decodeProtectedHeader, importJWK, SignJWT, type JWK, type JWTPayload } from 'jose';
import { ConfigError } from '../config-error.ts';
import {
  ADMIN_GROUP,
  forgedTokens,
  startOidcIssuer,
  USER_GROUP,
  type OidcIssuer,
} from '../../test-support/oidc-issuer.ts';
import {
  bearerJwt,
  CLOCK_TOLERANCE_S,
  KEYS_COOLDOWN_MS,
  KEYS_MAX_AGE_MS,
  OidcVerifier,
  principalOf,
  type OidcOptions,
} from './oidc.ts';
import { loadOidcSettings, type OidcSettings } from './oidc-config.ts';
import type { Principal } from './tokens.ts';

/** This file's ports (28600-28609): the issuers, and one where nothing listens. */
const PORTS = { issuer: 28600, tenant: 28601, rotating: 28602, failing: 28603, nothing: 28609 };
const REDIRECT = 'http://127.0.0.1:28608/signed-in';

/** What `check` gives, whether at once or later; a refusal as `refused: <reason>`. */
async function outcome(verifier: OidcVerifier, token: string): Promise<Principal | string> {
  try {
    return await verifier.check(token);
  } catch (error) {
    return `refused: ${(error as Error).message}`;
  }
}

describe('the identity provider, discovered at start', () => {
  let issuer: OidcIssuer;
  let verifier: OidcVerifier;
  const now = { ms: Date.now() };
  const options: OidcOptions = { now: () => now.ms };

  beforeAll(async () => {
    issuer = await startOidcIssuer({ port: PORTS.issuer, redirectUris: [REDIRECT] });
    verifier = await OidcVerifier.discover(issuer.settings(), options);
  });
  afterAll(() => issuer.stop());
  afterEach(() => {
    now.ms = Date.now();
  });

  it("reads the discovery document and keys, and names the origins the portal's pages need", () => {
    expect(verifier.jwksUri).toBe(`${issuer.issuer}/jwks`);
    expect(verifier.connectOrigins).toEqual([issuer.issuer]);
    expect(verifier.frameOrigins).toEqual([issuer.issuer]);
  });

  it('accepts the access tokens the provider issues: alice a user, root an admin by group', async () => {
    expect(await outcome(verifier, await issuer.accessToken('alice'))).toEqual({
      user: 'alice',
      roles: ['user'],
    });
    expect(await outcome(verifier, await issuer.accessToken('root'))).toEqual({
      user: 'root',
      roles: ['admin'],
    });
  });

  it("accepts the token of a sign-in through the portal's client (authorization code with PKCE)", async () => {
    const tokens = await issuer.signIn('alice', REDIRECT);
    expect(decodeProtectedHeader(tokens.access_token).typ).toBe('at+jwt');
    expect(await outcome(verifier, tokens.access_token)).toEqual({ user: 'alice', roles: ['user'] });
    // The ID token names the person for the portal; a refresh token renews without a page.
    expect(decodeJwt(tokens.id_token ?? '')).toMatchObject({
      preferred_username: 'alice',
      name: 'Alice Liddell',
    });
    expect(tokens.refresh_token).toBeTruthy();
  });

  it('answers a token verified before at once, until it expires', async () => {
    const token = await issuer.accessToken('alice');
    expect(verifier.check(token)).toBeInstanceOf(Promise);
    await verifier.check(token);
    const again = verifier.check(token);
    expect(again).not.toBeInstanceOf(Promise);
    expect(again).toEqual({ user: 'alice', roles: ['user'] });
    // Past its expiry (and the tolerance), it is verified again, and refused.
    now.ms = ((decodeJwt(token).exp ?? 0) + CLOCK_TOLERANCE_S + 1) * 1000;
    const late = verifier.check(token);
    expect(late).toBeInstanceOf(Promise);
    await expect(late).rejects.toThrow('"exp" claim timestamp check failed');
  });

  it('remembers a bounded number of tokens, by a hash of each, the least recently used forgotten first', async () => {
    const small = await OidcVerifier.discover(issuer.settings(), { maxRemembered: 2 });
    const [a, b, c] = await Promise.all([1, 2, 3].map(() => issuer.accessToken('alice')));
    for (const token of [a, b]) await small.check(token ?? '');
    small.check(a ?? ''); // a used again: b is the least recent
    await small.check(c ?? '');
    expect(small.rememberedCount).toBe(2);
    expect(small.check(a ?? '')).not.toBeInstanceOf(Promise);
    const forgotten = small.check(b ?? '');
    expect(forgotten).toBeInstanceOf(Promise);
    await forgotten;
    // Nothing the verifier keeps holds a token.
    const held = JSON.stringify([...(small as unknown as { remembered: Map<string, unknown> }).remembered]);
    expect(held).not.toContain(a);
    expect(held).toContain(
      createHash('sha256')
        .update(a ?? '')
        .digest('base64'),
    );
  });

  it('forgives a small difference of clocks, and no more (exp and nbf)', async () => {
    expect(await outcome(verifier, await issuer.accessToken('alice', { expiredSecondsAgo: 10 }))).toEqual({
      user: 'alice',
      roles: ['user'],
    });
    expect(await outcome(verifier, await issuer.accessToken('alice', { expiredSecondsAgo: 120 }))).toBe(
      'refused: "exp" claim timestamp check failed',
    );
    // The issuer's tokens are not valid before they were issued: to a clock two minutes behind, not yet.
    const fresh = await issuer.accessToken('alice');
    now.ms = Date.now() - 120_000;
    expect(await outcome(verifier, fresh)).toBe('refused: "nbf" claim timestamp check failed');
    now.ms = Date.now() - 10_000;
    expect(await outcome(verifier, fresh)).toEqual({ user: 'alice', roles: ['user'] });
  });

  it('refuses tokens of another key, changed claims, alg none, and HS256 with the public key as secret', async () => {
    const forged = await forgedTokens(issuer, 'root');
    const reasons = Object.fromEntries(
      await Promise.all(
        Object.entries(forged).map(async ([what, token]) => [what, await outcome(verifier, token)]),
      ),
    );
    const algorithm = 'refused: "alg" (Algorithm) Header Parameter value not allowed';
    expect(reasons).toEqual({
      'another key': 'refused: no applicable key found in the JSON Web Key Set',
      "another key, with the issuer's key id": 'refused: signature verification failed',
      'claims changed after signing': 'refused: signature verification failed',
      'alg none': algorithm,
      'HS256 with the public key (PEM) as the secret': algorithm,
      'HS256 with the public key (JWK) as the secret': algorithm,
    });
    expect(bearerJwt(`Bearer ${forged['alg none']}`)).toBe(forged['alg none']);
  });

  it('refuses a token for another audience', async () => {
    expect(await outcome(verifier, await issuer.accessToken('alice', { audience: 'another-api' }))).toBe(
      'refused: unexpected "aud" claim value',
    );
    const elsewhere = await OidcVerifier.discover(
      issuer.settings({ STREAMGATE_OIDC_AUDIENCE: 'another-api' }),
    );
    expect(await outcome(elsewhere, await issuer.accessToken('alice'))).toBe(
      'refused: unexpected "aud" claim value',
    );
  });

  it('refuses a token of another issuer signed with the same keys (another tenant of one provider)', async () => {
    const tenant = await startOidcIssuer({ port: PORTS.tenant, keysOf: issuer });
    try {
      const token = await tenant.accessToken('root');
      expect(decodeProtectedHeader(token).kid).toBe(issuer.currentKeyId);
      expect(await outcome(verifier, token)).toBe('refused: unexpected "iss" claim value');
    } finally {
      await tenant.stop();
    }
  });

  it("refuses a token of the issuer's key without an expiry, and one that names nobody", async () => {
    // The provider issues neither: signed here with its current key, as a provider with other rules might.
    const jwk = issuer.signingKeys.at(-1) as JWK;
    const key = await importJWK(jwk, 'RS256');
    const { exp: _exp, ...forever } = decodeJwt(await issuer.accessToken('alice'));
    const sign = (claims: JWTPayload) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: jwk.kid ?? '' }).sign(key);
    expect(await outcome(verifier, await sign(forever))).toBe('refused: missing required "exp" claim');
    const { sub: _sub, preferred_username: _name, ...nobody } = decodeJwt(await issuer.accessToken('alice'));
    expect(await outcome(verifier, await sign(nobody))).toBe(
      'refused: the token names nobody: it has neither "preferred_username" nor "sub"',
    );
  });
});

describe("the person and roles of a token's claims", () => {
  const settings = (env: Record<string, string> = {}): OidcSettings =>
    loadOidcSettings({
      STREAMGATE_OIDC_ISSUER: 'https://login.example.org/realms/site',
      STREAMGATE_OIDC_CLIENT_ID: 'streamgate',
      ...env,
    }) as OidcSettings;

  it('names the person by the user claim, else by sub', () => {
    expect(principalOf({ sub: 'f3a1', preferred_username: 'alice' }, settings()).user).toBe('alice');
    expect(principalOf({ sub: 'f3a1' }, settings()).user).toBe('f3a1');
    expect(
      principalOf(
        { sub: 'f3a1', email: 'alice@example.org' },
        settings({ STREAMGATE_OIDC_USER_CLAIM: 'email' }),
      ).user,
    ).toBe('alice@example.org');
  });

  it('makes the admin group admins, and everyone else a user while no user group is set', () => {
    expect(principalOf({ sub: 'r', groups: [ADMIN_GROUP] }, settings()).roles).toEqual(['admin']);
    // Keycloak writes a group with its path when "Full group path" is on.
    expect(principalOf({ sub: 'r', groups: [`/${ADMIN_GROUP}`] }, settings()).roles).toEqual(['admin']);
    expect(principalOf({ sub: 'a', groups: ['physics'] }, settings()).roles).toEqual(['user']);
    expect(principalOf({ sub: 'a' }, settings()).roles).toEqual(['user']);
    expect(principalOf({ sub: 'r', groups: `/${ADMIN_GROUP}/nested` }, settings()).roles).toEqual(['user']);
  });

  it("makes a user group's members users and the others viewers", () => {
    const withGroup = settings({ STREAMGATE_OIDC_USER_GROUP: USER_GROUP });
    expect(principalOf({ sub: 'a', groups: [USER_GROUP] }, withGroup).roles).toEqual(['user']);
    expect(principalOf({ sub: 'v', groups: ['physics'] }, withGroup).roles).toEqual(['viewer']);
    expect(principalOf({ sub: 'r', groups: [ADMIN_GROUP] }, withGroup).roles).toEqual(['admin']);
  });

  it('reads groups from another claim, a nested one too (Keycloak realm roles)', () => {
    const roles = settings({
      STREAMGATE_OIDC_GROUPS_CLAIM: 'realm_access.roles',
      STREAMGATE_OIDC_ADMIN_GROUP: 'streamgate-admin',
    });
    expect(principalOf({ sub: 'r', realm_access: { roles: ['streamgate-admin'] } }, roles).roles).toEqual([
      'admin',
    ]);
  });
});

describe("the issuer's keys over time", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('reads the keys again when a token names a new one (rotation), at most once every 30 s', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const issuer = await startOidcIssuer({ port: PORTS.rotating });
    try {
      const verifier = await OidcVerifier.discover(issuer.settings());
      const before = await issuer.accessToken('alice');
      const first = issuer.currentKeyId;
      expect(await issuer.rotateKeys()).not.toBe(first);
      const after = await issuer.accessToken('root');
      expect(decodeProtectedHeader(after).kid).toBe(issuer.currentKeyId);
      // Right after the keys were read, a key the service does not know is not worth asking the issuer about.
      expect(await outcome(verifier, after)).toMatch(/no applicable key found/);
      vi.setSystemTime(Date.now() + KEYS_COOLDOWN_MS + 1_000);
      expect(await outcome(verifier, after)).toEqual({ user: 'root', roles: ['admin'] });
      // Tokens of the earlier key stay good while the issuer publishes it.
      expect(await outcome(verifier, before)).toEqual({ user: 'alice', roles: ['user'] });
    } finally {
      await issuer.stop();
    }
  });

  it('keeps the keys last read when the issuer cannot be reached, and says so', async () => {
    const issuer = await startOidcIssuer({ port: PORTS.failing });
    const now = { ms: Date.now() };
    const verifier = await OidcVerifier.discover(issuer.settings(), { now: () => now.ms });
    const warn = vi.fn();
    verifier.log = { warn };
    const seen = await issuer.accessToken('alice');
    expect(await outcome(verifier, seen)).toEqual({ user: 'alice', roles: ['user'] });
    await issuer.stop();
    // Issued before the outage (the provider's model needs no network), never verified here yet.
    const unseen = await issuer.accessToken('root');
    expect(await outcome(verifier, seen)).toEqual({ user: 'alice', roles: ['user'] });
    expect(await outcome(verifier, unseen)).toEqual({ user: 'root', roles: ['admin'] });
    // Once the keys are old, they are read again in the background; that fails, and they stay in use.
    now.ms += KEYS_MAX_AGE_MS;
    const later = await issuer.accessToken('alice');
    expect(await outcome(verifier, later)).toEqual({ user: 'alice', roles: ['user'] });
    await vi.waitFor(() => expect(warn).toHaveBeenCalledTimes(1));
    expect(warn.mock.calls[0]).toEqual([
      { issuer: issuer.issuer, reason: 'connection refused' },
      "cannot read the identity provider's signing keys again: the keys last read stay in use",
    ]);
    expect(await outcome(verifier, await issuer.accessToken('root'))).toEqual({
      user: 'root',
      roles: ['admin'],
    });
  });
});

describe('start-up', () => {
  it('stops with one sentence naming the issuer when its discovery document cannot be read', async () => {
    const settings = loadOidcSettings({
      STREAMGATE_OIDC_ISSUER: `http://127.0.0.1:${PORTS.nothing}`,
      STREAMGATE_OIDC_CLIENT_ID: 'streamgate-portal',
    }) as OidcSettings;
    const error = await OidcVerifier.discover(settings).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(
      `STREAMGATE_OIDC_ISSUER=http://127.0.0.1:${PORTS.nothing}: cannot read its discovery document at ` +
        `http://127.0.0.1:${PORTS.nothing}/.well-known/openid-configuration (connection refused).`,
    );
  });

  it('stops when the discovery document names another issuer, saying which', async () => {
    const issuer = await startOidcIssuer({ port: PORTS.tenant });
    try {
      const settings = issuer.settings({
        STREAMGATE_OIDC_ISSUER: `http://localhost:${PORTS.tenant}`,
      });
      await expect(OidcVerifier.discover(settings)).rejects.toThrow(
        `STREAMGATE_OIDC_ISSUER=http://localhost:${PORTS.tenant}: its discovery document at ` +
          `http://localhost:${PORTS.tenant}/.well-known/openid-configuration names the issuer ` +
          `"http://127.0.0.1:${PORTS.tenant}": set exactly that.`,
      );
    } finally {
      await issuer.stop();
    }
  });

  it('takes only credentials shaped like JWTs for the identity provider', () => {
    expect(bearerJwt('Bearer aaa.bbb.ccc')).toBe('aaa.bbb.ccc');
    expect(bearerJwt('bearer  aaa.bbb.ccc ')).toBe('aaa.bbb.ccc');
    expect(bearerJwt('Bearer alice-token')).toBeNull();
    expect(bearerJwt('Bearer a.b')).toBeNull();
    expect(bearerJwt('Bearer a.b.c.d.e')).toBeNull();
    expect(bearerJwt('Basic aaa.bbb.ccc')).toBeNull();
    expect(bearerJwt(`Bearer a.${'b'.repeat(20_000)}.c`)).toBeNull();
  });
});
