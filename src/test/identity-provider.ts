/**
 * A site's identity provider as the portal meets it, answered by MSW: its discovery document, its token
 * endpoint (authorization code with PKCE, and refresh tokens), its logout; and a browser that records where
 * the portal sends it instead of leaving the page. The portal's own client library (oidc-client-ts) does the
 * rest, as in a browser.
 */
import type { INavigator } from 'oidc-client-ts';
import type { AuthConfig } from '../lib/auth/auth-config';
import { completeSignIn, signIn, startSignIn } from '../lib/auth/sign-in';
import { DEFAULT_CONFIG, setFileConfig } from '../lib/config';
import { http, HttpResponse, server } from './server';

export const ISSUER = 'https://id.example.org/realms/site';
export const AUTH: AuthConfig = { issuer: ISSUER, clientId: 'streamgate-portal', scopes: 'openid profile' };

/** The person the provider signs in. */
export const ALICE = { sub: 'a1b2', preferred_username: 'alice', name: 'Alice Liddell' };

const base64url = (text: string) => Buffer.from(text).toString('base64url');

/**
 * An ID token as the token endpoint returns it. The client reads its claims and trusts the TLS connection to the
 * provider for them (OpenID Connect Core 3.1.3.7), so its signature is not what this test is about.
 */
function idToken(claims: Record<string, unknown>): string {
  const now = Math.floor(Date.now() / 1000);
  const payload = { iss: ISSUER, aud: AUTH.clientId, iat: now, exp: now + 300, ...claims };
  return `${base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }))}.${base64url(JSON.stringify(payload))}.c2ln`;
}

export interface ProviderOptions {
  /** Whether it has an `end_session_endpoint` (most do). */
  logout?: boolean;
  /** What its token endpoint answers to a refresh token: new tokens, or a refusal (the sign-in has ended). */
  refresh?: 'works' | 'refused';
}

/** The provider's answers; `tokenRequests` records each form posted to its token endpoint. */
export function identityProvider({ logout = true, refresh = 'works' }: ProviderOptions = {}) {
  const tokenRequests: URLSearchParams[] = [];
  let issued = 0;
  server.use(
    http.get(`${ISSUER}/.well-known/openid-configuration`, () =>
      HttpResponse.json({
        issuer: ISSUER,
        authorization_endpoint: `${ISSUER}/auth`,
        token_endpoint: `${ISSUER}/token`,
        jwks_uri: `${ISSUER}/jwks`,
        ...(logout ? { end_session_endpoint: `${ISSUER}/logout` } : {}),
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
      }),
    ),
    http.post(`${ISSUER}/token`, async ({ request }) => {
      const form = new URLSearchParams(await request.text());
      tokenRequests.push(form);
      if (form.get('grant_type') === 'refresh_token' && refresh === 'refused')
        return HttpResponse.json(
          { error: 'invalid_grant', error_description: 'Session ended' },
          { status: 400 },
        );
      issued += 1;
      return HttpResponse.json({
        access_token: `access-${issued}`,
        token_type: 'Bearer',
        expires_in: 300,
        refresh_token: `refresh-${issued}`,
        id_token: idToken(ALICE),
        scope: AUTH.scopes,
      });
    }),
  );
  return { tokenRequests };
}

/** A browser that records the addresses the portal sends it to (the provider's pages) and stays where it is. */
export function recordingBrowser(): INavigator & { urls: string[] } {
  const urls: string[] = [];
  return {
    urls,
    prepare: async () => ({
      navigate: async ({ url }) => {
        urls.push(url);
        return { url };
      },
      close: () => undefined,
    }),
    callback: async () => undefined,
  };
}

/** The portal configured to sign people in with the provider, no one signed in yet. */
export async function portalThatSignsIn(browser = recordingBrowser()) {
  setFileConfig({ ...DEFAULT_CONFIG, auth: AUTH });
  await startSignIn(AUTH, { redirect: browser });
  return browser;
}

/** The `state` of the sign-in the portal last sent the browser to. */
export function stateOf(browser: { urls: string[] }): string {
  const url = new URL(browser.urls.at(-1) ?? '');
  return url.searchParams.get('state') ?? '';
}

/** Alice signed in through the whole flow (code, PKCE), as the callback route completes it. */
export async function signedInPortal(options: ProviderOptions = {}) {
  const provider = identityProvider(options);
  const browser = await portalThatSignsIn();
  await signIn('/');
  await completeSignIn(`${window.location.origin}/signin-callback?code=the-code&state=${stateOf(browser)}`);
  return { provider, browser };
}
