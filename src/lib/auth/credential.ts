/**
 * The one credential of the portal's requests to the API (CONTRACT §10 and §22): the token of the settings
 * where one is set (scripts and small set-ups, and every deployment without sign-in), else the access token of
 * the person signed in with the site's identity provider. Every request asks here, when it is sent, so that a
 * renewed token is used at once.
 */
import type { PortalConfig } from '../config';
import { getSignedInUser, renewAfterRefusal, signedInAccessToken, signsIn } from './sign-in';

/**
 * The bearer token of a request under `config`, or null. The person's is renewed first when it has expired,
 * unless `renew` is false (a probe of a service that does not answer need not wake the provider).
 */
export async function bearerToken(config: PortalConfig, { renew = true } = {}): Promise<string | null> {
  if (config.token !== null) return config.token;
  return renew ? signedInAccessToken() : (getSignedInUser()?.access_token ?? null);
}

/**
 * Whether the person must sign in before the portal can ask the API anything: it signs people in, no token
 * is set and no one is signed in in this tab.
 */
export function mustSignIn(config: PortalConfig): boolean {
  return signsIn() && config.token === null && getSignedInUser() === null;
}

/** The service's answer to a credential it does not accept (section 10), as opposed to a role that lacks a right. */
async function refusedCredential(response: Response): Promise<boolean> {
  if (response.status !== 403) return false;
  try {
    const body = (await response.clone().json()) as { detail?: unknown } | null;
    return body?.detail === 'Not authenticated';
  } catch {
    return false;
  }
}

/**
 * `send` with the credential of `config` on each request. A signed-in person's token the service refuses
 * (it expired by the service's clock) is renewed once, and a request that changes nothing is sent again with the
 * new one; where renewal fails, the person is forgotten and the page sends them to sign in.
 */
export function authorizedFetch(
  config: PortalConfig,
  send: (request: Request) => Promise<Response>,
): (request: Request) => Promise<Response> {
  return async (request) => {
    const token = await bearerToken(config);
    const again = request.method === 'GET' || request.method === 'HEAD' ? request.clone() : undefined;
    if (token !== null) request.headers.set('Authorization', `Bearer ${token}`);
    const response = await send(request);
    if (token === null || token === config.token || !(await refusedCredential(response))) return response;
    const fresh = await renewAfterRefusal(token);
    if (fresh === null || again === undefined) return response;
    again.headers.set('Authorization', `Bearer ${fresh}`);
    return send(again);
  };
}
