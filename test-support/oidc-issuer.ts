/**
 * A real OpenID provider for tests and demos (CONTRACT §22, issue 32): `oidc-provider`, a certified
 * implementation, run in this process on a port of its own. It knows two people, `alice` (a user) and `root` (an
 * admin through the group streamgate-admins), and the portal's public client (authorization code with PKCE, no
 * secret). Its access tokens are JWTs for the Streamgate API: `aud` is the portal's client id, as a site's
 * provider is set up to give (README, Keycloak's audience mapper), with `preferred_username` and `groups`.
 *
 * Tests get tokens without a browser in two ways, both the provider's own: `accessToken()` issues one through
 * its AccessToken model, as its token endpoint does (an expired one too, issued in the past), and `signIn()` goes
 * through the whole authorization code flow with PKCE over HTTP, the way the portal does. `rotateKeys()` adds a
 * new signing key and makes it the current one, as an administrator does at a real provider, while the old key
 * stays published for the tokens signed with it; `stop()` makes the issuer unreachable.
 */
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  base64url,
  decodeJwt,
  exportJWK,
  exportSPKI,
  generateKeyPair,
  importJWK,
  SignJWT,
  type CryptoKey,
  type JWK,
  type JWTPayload,
} from 'jose';
import Provider, {
  errors,
  type Adapter,
  type AdapterPayload,
  type Configuration,
  type KoaContextWithOIDC,
} from 'oidc-provider';
import { loadOidcSettings, type OidcSettings } from '../server/auth/oidc-config.ts';

/** The portal's public client. */
export const PORTAL_CLIENT_ID = 'streamgate-portal';
export const ADMIN_GROUP = 'streamgate-admins';
export const USER_GROUP = 'streamgate-users';
/** The resource indicator of the Streamgate API: every access token of the portal is for it. */
export const API_RESOURCE = 'urn:streamgate:api';

/** The people who may sign in; `alice` is also a user of the tests' tokens file (test-support.ts TOKENS). */
export const PEOPLE = {
  alice: { name: 'Alice Liddell', password: 'alice-password', groups: [USER_GROUP] },
  root: { name: 'Root Admin', password: 'root-password', groups: [ADMIN_GROUP] },
} as const;
export type Person = keyof typeof PEOPLE;

const isPerson = (id: unknown): id is Person => typeof id === 'string' && Object.hasOwn(PEOPLE, id);

export interface OidcIssuerOptions {
  port: number;
  /** The portal's sign-in redirect URIs; by default the portal of a service at its default address. */
  redirectUris?: string[];
  postLogoutRedirectUris?: string[];
  /** Lifetime of access tokens; one hour by default. */
  accessTokenTtlSeconds?: number;
  /**
   * The signing keys of another issuer, shared: as the tenants of one provider share theirs (Entra ID's do), so
   * that its tokens are signed right and only their `iss` tells them apart.
   */
  keysOf?: OidcIssuer;
}

export interface IssuedTokens {
  access_token: string;
  id_token?: string;
  refresh_token?: string;
  expires_in: number;
  token_type: string;
  scope?: string;
}

export interface OidcIssuer {
  /** http://127.0.0.1:<port>, as the issuer names itself. */
  readonly issuer: string;
  readonly clientId: string;
  /** The STREAMGATE_OIDC_* settings of a service that trusts this issuer (and `more`). */
  env(more?: Record<string, string>): Record<string, string>;
  /** The same, as the service's settings. */
  settings(more?: Record<string, string>): OidcSettings;
  /**
   * An access token of `person`, issued by the provider as its token endpoint issues one after sign-in;
   * `expiredSecondsAgo` issues it in the past, so that it has expired that long ago, and `audience` for another
   * API than Streamgate.
   */
  accessToken(person: Person, options?: { expiredSecondsAgo?: number; audience?: string }): Promise<string>;
  /** Signs `person` in through the authorization code flow with PKCE, as the portal does, and returns its tokens. */
  signIn(person: Person, redirectUri: string): Promise<IssuedTokens>;
  /** Adds a signing key and makes it the current one; earlier keys stay published. Returns its key id. */
  rotateKeys(): Promise<string>;
  /** The key id new tokens are signed with. */
  readonly currentKeyId: string;
  /** The signing keys, private parts too, oldest first (for `keysOf`). */
  readonly signingKeys: JWK[];
  /** Stops answering: the issuer is unreachable from now on (tokens may still be issued by `accessToken`). */
  stop(): Promise<void>;
}

/**
 * The provider's store (sessions, grants, codes, refresh tokens): the issuer's own, so that it outlives a change
 * of keys, and gone with the issuer.
 */
function memoryStore(): (name: string) => Adapter {
  const entries = new Map<string, { payload: AdapterPayload; until: number }>();
  return (name) => {
    const key = (id: string) => `${name}:${id}`;
    const live = (id: string) => {
      const entry = entries.get(key(id));
      if (entry && entry.until <= Date.now()) entries.delete(key(id));
      return entry && entry.until > Date.now() ? entry.payload : undefined;
    };
    const where = (test: (payload: AdapterPayload) => boolean) =>
      [...entries.entries()].find(([k, entry]) => k.startsWith(`${name}:`) && test(entry.payload))?.[1]
        .payload;
    return {
      async upsert(id, payload, expiresIn) {
        entries.set(key(id), { payload, until: expiresIn ? Date.now() + expiresIn * 1000 : Infinity });
      },
      find: async (id) => live(id),
      findByUid: async (uid) => where((payload) => payload.uid === uid),
      findByUserCode: async (code) => where((payload) => payload.userCode === code),
      async consume(id) {
        const payload = live(id);
        if (payload) payload.consumed = Math.floor(Date.now() / 1000);
      },
      async destroy(id) {
        entries.delete(key(id));
      },
      async revokeByGrantId(grantId) {
        for (const [k, entry] of entries) if (entry.payload.grantId === grantId) entries.delete(k);
      },
    };
  };
}

async function signingKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, kid: randomBytes(8).toString('hex'), use: 'sig', alg: 'RS256' };
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function loginPage(uid: string, problem?: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign in</title></head>
<body><main><h1>Sign in to the test identity provider</h1>
${problem ? `<p role="alert">${escapeHtml(problem)}</p>` : ''}
<form method="post" action="/interaction/${escapeHtml(uid)}/login">
<label>Username <input name="login" autocomplete="username" autofocus></label>
<label>Password <input name="password" type="password" autocomplete="current-password"></label>
<button type="submit">Sign in</button></form></main></body></html>`;
}

async function formOf(request: http.IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** Starts the issuer on `options.port` of 127.0.0.1. */
export async function startOidcIssuer(options: OidcIssuerOptions): Promise<OidcIssuer> {
  const issuer = `http://127.0.0.1:${options.port}`;
  const keys: JWK[] = options.keysOf?.signingKeys ?? [await signingKey()];
  const cookieKeys = [randomBytes(32).toString('base64url')];
  const adapter = memoryStore();
  const accessTokenTtl = options.accessTokenTtlSeconds ?? 3600;

  const configuration = (): Configuration => ({
    clients: [
      {
        client_id: PORTAL_CLIENT_ID,
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: options.redirectUris ?? ['http://127.0.0.1:8080/'],
        post_logout_redirect_uris: options.postLogoutRedirectUris ?? [],
      },
    ],
    // The newest key first: it signs; the others stay published for the tokens signed with them.
    jwks: { keys: [...keys].reverse() as never },
    cookies: { keys: cookieKeys },
    adapter,
    ttl: {
      AccessToken: accessTokenTtl,
      AuthorizationCode: 60,
      IdToken: 3600,
      Interaction: 600,
      Grant: 86_400,
      Session: 86_400,
      RefreshToken: 86_400,
    },
    claims: { openid: ['sub'], profile: ['preferred_username', 'name'], groups: ['groups'] },
    scopes: ['openid', 'profile', 'groups', 'offline_access'],
    // The portal shows the person's name from the ID token: its access token is for the API, not userinfo.
    conformIdTokenClaims: false,
    async findAccount(_ctx, id) {
      if (!isPerson(id)) return undefined;
      const person = PEOPLE[id];
      return {
        accountId: id,
        claims: () => ({ sub: id, preferred_username: id, name: person.name, groups: [...person.groups] }),
      };
    },
    // What a site's provider adds to access tokens for the API (Keycloak's mappers): the name and the groups.
    extraTokenClaims(_ctx, token) {
      const id = (token as { accountId?: string }).accountId;
      return isPerson(id) ? { preferred_username: id, groups: [...PEOPLE[id].groups] } : undefined;
    },
    // Like a site's provider: the portal's client always gets refresh tokens, for renewal without a page.
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    // Not valid before it was issued, as some providers say (Entra ID): a service whose clock is behind the
    // issuer's sees a token from the future.
    formats: {
      customizers: {
        jwt(_ctx, _token, jwt) {
          jwt.payload.nbf = jwt.payload.iat;
        },
      },
    },
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => API_RESOURCE,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: KoaContextWithOIDC, resource: string) => {
          if (resource !== API_RESOURCE) throw new errors.InvalidTarget();
          return {
            scope: 'openid profile groups',
            audience: PORTAL_CLIENT_ID,
            accessTokenFormat: 'jwt',
            accessTokenTTL: accessTokenTtl,
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
  });

  let provider = new Provider(issuer, configuration());
  let handle = provider.callback();

  /** The sign-in page and its form; consent is given at once (the portal is the site's own client). */
  async function interaction(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const details = await provider.interactionDetails(request, response);
    if (details.prompt.name === 'login') {
      if (request.method !== 'POST') {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(loginPage(details.uid));
        return;
      }
      const form = await formOf(request);
      const login = form.get('login') ?? '';
      if (!isPerson(login) || PEOPLE[login].password !== form.get('password')) {
        response
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end(loginPage(details.uid, 'Wrong username or password.'));
        return;
      }
      await provider.interactionFinished(
        request,
        response,
        { login: { accountId: login } },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    const { missingOIDCScope, missingOIDCClaims, missingResourceScopes } = details.prompt.details as {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId: details.session?.accountId ?? '', clientId: PORTAL_CLIENT_ID });
    if (!grant) throw new Error('the grant of this sign-in is gone');
    if (missingOIDCScope) grant.addOIDCScope(missingOIDCScope.join(' '));
    if (missingOIDCClaims) grant.addOIDCClaims(missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(missingResourceScopes ?? {})) {
      grant.addResourceScope(indicator, scopes.join(' '));
    }
    await provider.interactionFinished(
      request,
      response,
      { consent: { grantId: await grant.save() } },
      { mergeWithLastSubmission: true },
    );
  }

  const server = http.createServer((request, response) => {
    if (!request.url?.startsWith('/interaction/')) return void handle(request, response);
    interaction(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' });
      response.end(`This sign-in cannot go on: ${(error as Error).message}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  if (port !== options.port) throw new Error(`the issuer listens on ${port}, not ${options.port}`);

  const env = (more: Record<string, string> = {}) => ({
    STREAMGATE_OIDC_ISSUER: issuer,
    STREAMGATE_OIDC_CLIENT_ID: PORTAL_CLIENT_ID,
    ...more,
  });

  return {
    issuer,
    clientId: PORTAL_CLIENT_ID,
    env,
    settings(more) {
      const settings = loadOidcSettings(env(more));
      if (!settings) throw new Error('no issuer in the settings');
      return settings;
    },
    get currentKeyId() {
      return String(keys.at(-1)?.kid);
    },
    signingKeys: keys,

    async accessToken(person, { expiredSecondsAgo, audience = PORTAL_CLIENT_ID } = {}) {
      const client = await provider.Client.find(PORTAL_CLIENT_ID);
      if (!client) throw new Error('the portal client is missing');
      const grant = new provider.Grant({ accountId: person, clientId: PORTAL_CLIENT_ID });
      grant.addOIDCScope('openid profile groups');
      grant.addResourceScope(API_RESOURCE, 'openid profile groups');
      const grantId = await grant.save();
      const now = Math.floor(Date.now() / 1000);
      const past =
        expiredSecondsAgo === undefined
          ? {}
          : { iat: now - expiredSecondsAgo - accessTokenTtl, exp: now - expiredSecondsAgo };
      const token = new provider.AccessToken({
        accountId: person,
        client,
        grantId,
        gty: 'authorization_code',
        scope: 'openid profile groups',
        ...past,
        resourceServer: new provider.ResourceServer(API_RESOURCE, {
          scope: 'openid profile groups',
          audience,
          accessTokenFormat: 'jwt',
          accessTokenTTL: accessTokenTtl,
          jwt: { sign: { alg: 'RS256' } },
        }),
      });
      return token.save();
    },

    async signIn(person, redirectUri) {
      const verifier = randomBytes(32).toString('base64url');
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      const state = randomBytes(8).toString('base64url');
      const cookies = new Map<string, string>();
      const go = async (url: string, init: RequestInit = {}): Promise<Response> => {
        const response = await fetch(new URL(url, issuer), {
          ...init,
          redirect: 'manual',
          headers: {
            ...(init.headers as Record<string, string>),
            cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; '),
          },
        });
        for (const line of response.headers.getSetCookie()) {
          const [pair = ''] = line.split(';');
          const at = pair.indexOf('=');
          cookies.set(pair.slice(0, at), pair.slice(at + 1));
        }
        return response;
      };
      const authorize = new URL('/auth', issuer);
      authorize.search = new URLSearchParams({
        client_id: PORTAL_CLIENT_ID,
        response_type: 'code',
        redirect_uri: redirectUri,
        scope: 'openid profile groups',
        state,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }).toString();
      // Follows the provider's redirects, signing in on its page, until it sends the browser back to the portal.
      let response = await go(authorize.href);
      for (let hops = 0; hops < 10; hops += 1) {
        const location = response.headers.get('location');
        if (location?.startsWith(redirectUri)) {
          const back = new URL(location);
          const code = back.searchParams.get('code');
          if (!code || back.searchParams.get('state') !== state) {
            throw new Error(`the sign-in came back without a code: ${back.search}`);
          }
          const tokens = await go('/token', {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({
              grant_type: 'authorization_code',
              code,
              redirect_uri: redirectUri,
              client_id: PORTAL_CLIENT_ID,
              code_verifier: verifier,
            }),
          });
          if (!tokens.ok)
            throw new Error(`the token endpoint answered ${tokens.status}: ${await tokens.text()}`);
          return (await tokens.json()) as IssuedTokens;
        }
        if (location) {
          response = await go(location);
        } else if (response.status === 200 && response.url.includes('/interaction/')) {
          response = await go(new URL(`${new URL(response.url).pathname}/login`, issuer).href, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ login: person, password: PEOPLE[person].password }),
          });
        } else {
          throw new Error(
            `the sign-in stopped at ${response.url}: ${response.status} ${await response.text()}`,
          );
        }
      }
      throw new Error('the sign-in went round in circles');
    },

    async rotateKeys() {
      const key = await signingKey();
      keys.push(key);
      // A provider configured anew, as an administrator's change of keys does: the same issuer, address,
      // clients, people and store.
      provider = new Provider(issuer, configuration());
      handle = provider.callback();
      return String(key.kid);
    },

    async stop() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** A token like `token` with its payload changed, keeping its header and signature. */
export function tampered(token: string, change: (payload: JWTPayload) => JWTPayload): string {
  const [header, , signature] = token.split('.');
  return `${header}.${base64url.encode(JSON.stringify(change(decodeJwt(token))))}.${signature}`;
}

/**
 * What an attacker makes of a real token of `person` and of what the issuer publishes, by what each is: every
 * one must be refused.
 */
export async function forgedTokens(issuer: OidcIssuer, person: Person): Promise<Record<string, string>> {
  const claims = decodeJwt(await issuer.accessToken(person));
  const kid = issuer.currentKeyId;
  const { privateKey } = await generateKeyPair('RS256');
  const ownKey = (keyId: string) => new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: keyId });
  // The issuer's public key, as anyone reads it, in the forms an HMAC confusion would use as the secret.
  const { keys } = (await (await fetch(`${issuer.issuer}/jwks`)).json()) as { keys: JWK[] };
  const jwk = keys.find((key) => key.kid === kid) as JWK;
  const pem = await exportSPKI((await importJWK(jwk, 'RS256')) as CryptoKey);
  const hmac = (secret: string) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid }).sign(new TextEncoder().encode(secret));
  return {
    'another key': await ownKey('not-the-issuers').sign(privateKey),
    "another key, with the issuer's key id": await ownKey(kid).sign(privateKey),
    // Another person's name (the tokens file's admin) and the admin group.
    'claims changed after signing': tampered(await issuer.accessToken(person), (payload) => ({
      ...payload,
      preferred_username: 'ada',
      groups: [ADMIN_GROUP],
    })),
    'alg none': `${base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${base64url.encode(JSON.stringify(claims))}.`,
    'HS256 with the public key (PEM) as the secret': await hmac(pem),
    'HS256 with the public key (JWK) as the secret': await hmac(JSON.stringify(jwk)),
  };
}
