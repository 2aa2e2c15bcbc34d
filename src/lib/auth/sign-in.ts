/**
 * Sign-in with the site's identity provider (CONTRACT §22) through oidc-client-ts, the certified client of
 * single-page apps: authorization code with PKCE, the person's tokens in this tab's sessionStorage only (never
 * localStorage, never a URL), renewed before they expire (with the refresh token the provider gives, else in a
 * hidden frame). One UserManager for the portal, made at start-up from `config.json`'s `auth`; nothing here
 * touches the UI, which follows the person through `subscribeSignIn` and `getSignedInUser`.
 */
import type { INavigator, User, UserManager, UserManagerSettings } from 'oidc-client-ts';
import type { AuthConfig } from './auth-config';

/** Where the provider sends the browser back after sign-in: a route of the portal completes it there. */
export const SIGN_IN_CALLBACK_PATH = '/signin-callback';
/** Where the hidden frame of a renewal without refresh token comes back: main.tsx answers it, without the app. */
export const SILENT_RENEW_PATH = '/signin-silent';

/** What the portal keeps across the round trip (in this tab's storage, under the `state` the provider echoes). */
interface SignInState {
  returnTo: string;
}

/** Ways to the provider that do not leave the page: tests pass their own. */
export interface SignInNavigators {
  redirect?: INavigator;
  iframe?: INavigator;
}

/** Set once the person signed out in this tab: the portal then waits for them to ask to sign in again. */
const SIGNED_OUT_KEY = 'streamgate.signed-out';
/** When the portal last sent the person to the provider by itself: never twice within AUTO_SIGN_IN_PAUSE_MS. */
const AUTO_SIGN_IN_KEY = 'streamgate.auto-sign-in';
const AUTO_SIGN_IN_PAUSE_MS = 30_000;

let manager: UserManager | undefined;
let current: User | null = null;
let renewal: Promise<string | null> | undefined;
/** Completions under way, by callback URL: React runs a page's effect twice in development. */
const completions = new Map<string, Promise<string>>();
const listeners = new Set<() => void>();
/** Tokens that came from a renewal after a refusal: one refused too is not renewed again. */
const refusedFresh = new Set<string>();

function set(user: User | null): void {
  current = user;
  for (const listener of listeners) listener();
}

/** An address of the portal itself, under the base it is served from. */
function portalUrl(path: string): string {
  const base = (import.meta.env.BASE_URL ?? '/').replace(/\/+$/, '');
  return new URL(`${base}${path}`, window.location.origin).href;
}

/** The client library, loaded only where the portal signs people in. */
type Oidc = typeof import('oidc-client-ts');

/** The UserManager's settings for `auth`. */
function settingsOf(oidc: Oidc, auth: AuthConfig): UserManagerSettings {
  const tabStorage = new oidc.WebStorageStateStore({ store: window.sessionStorage });
  return {
    authority: auth.issuer,
    client_id: auth.clientId,
    scope: auth.scopes,
    response_type: 'code',
    redirect_uri: portalUrl(SIGN_IN_CALLBACK_PATH),
    silent_redirect_uri: portalUrl(SILENT_RENEW_PATH),
    post_logout_redirect_uri: portalUrl('/'),
    // Tokens and the sign-in's own state (its PKCE verifier) stay in this tab, and go with it.
    userStore: tabStorage,
    stateStore: tabStorage,
    automaticSilentRenew: true,
    // The provider's session frame polls it for nothing the portal needs: tokens say what it needs.
    monitorSession: false,
    // The name comes from the ID token: no extra request to the provider's userinfo endpoint.
    loadUserInfo: false,
  };
}

/**
 * Makes the portal's UserManager for `auth` (none when undefined: the portal signs no one in) and reads the
 * person this tab signed in, if any. Called once at start-up, before the first request.
 */
export async function startSignIn(
  auth: AuthConfig | undefined,
  navigators: SignInNavigators = {},
): Promise<void> {
  const previous = manager;
  manager = undefined;
  renewal = undefined;
  completions.clear();
  refusedFresh.clear();
  if (previous) {
    previous.stopSilentRenew();
    await previous.events.unload();
  }
  if (!auth) {
    set(null);
    return;
  }
  const oidc = await import('oidc-client-ts');
  const next = new oidc.UserManager(
    settingsOf(oidc, auth),
    navigators.redirect,
    undefined,
    navigators.iframe,
  );
  manager = next;
  next.events.addUserLoaded((user) => set(user));
  next.events.addUserUnloaded(() => set(null));
  set(await next.getUser());
}

/** Whether the portal signs people in (config.json has `auth`). */
export function signsIn(): boolean {
  return manager !== undefined;
}

/** The person signed in in this tab, or null. Its token may have expired: requests renew it first. */
export function getSignedInUser(): User | null {
  return current;
}

/** Calls `listener` when the person signs in, is renewed or signs out; returns the function that stops it. */
export function subscribeSignIn(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The name the app bar shows: the person's name, else their user name, else their subject. */
export function displayName(user: User): string {
  const { name, preferred_username: username, sub } = user.profile;
  return name || username || sub;
}

/** A path of this portal, or `/`: where a sign-in returns is never another site. */
function samePortalPath(path: unknown): string {
  return typeof path === 'string' && path.startsWith('/') && !path.startsWith('//') ? path : '/';
}

/** Sends the person to the provider's sign-in; they come back to `returnTo` (a path of the portal). */
export async function signIn(returnTo: string): Promise<void> {
  if (!manager) return;
  sessionStorage.removeItem(SIGNED_OUT_KEY);
  const state: SignInState = { returnTo: samePortalPath(returnTo) };
  await manager.signinRedirect({ state });
}

/** Whether the person signed out in this tab (and has not asked to sign in since). */
export function hasSignedOut(): boolean {
  return sessionStorage.getItem(SIGNED_OUT_KEY) !== null;
}

/**
 * Whether the portal may send the person to the provider by itself now: not after they signed out, and not
 * again so soon after it last did (a provider whose tokens the service refuses would send them round forever).
 */
export function maySignInByItself(now = Date.now()): boolean {
  if (hasSignedOut()) return false;
  const last = Number(sessionStorage.getItem(AUTO_SIGN_IN_KEY) ?? 0);
  return !(now - last >= 0 && now - last < AUTO_SIGN_IN_PAUSE_MS);
}

/** `signIn` when the portal decided it by itself (a person who is not signed in opened a page). */
export async function signInByItself(returnTo: string, now = Date.now()): Promise<void> {
  sessionStorage.setItem(AUTO_SIGN_IN_KEY, String(now));
  await signIn(returnTo);
}

/**
 * Completes the sign-in the provider sent back to `url` (the callback route's address): exchanges the code
 * for tokens and returns the path the person had asked for. Rejects with the provider's words when it refused.
 */
export function completeSignIn(url: string): Promise<string> {
  const known = completions.get(url);
  if (known) return known;
  const completion = (async () => {
    if (!manager) throw new Error('This portal does not sign anyone in.');
    const user = await manager.signinRedirectCallback(url);
    return samePortalPath((user.state as Partial<SignInState> | undefined)?.returnTo);
  })();
  completions.set(url, completion);
  return completion;
}

/**
 * Signs the person out: forgets their tokens and, where the provider has an `end_session_endpoint`, ends their
 * session there too (the browser goes there and comes back to the portal). Resolves once it is done here.
 */
export async function signOut(): Promise<void> {
  if (!manager) return;
  sessionStorage.setItem(SIGNED_OUT_KEY, String(Date.now()));
  try {
    await manager.signoutRedirect();
  } catch {
    // A provider without a logout endpoint: the person is signed out of the portal, which is what it can do.
    await manager.removeUser();
  }
}

/**
 * Renews the person's tokens without a page (refresh token, or the hidden frame); one renewal at a time. When it
 * cannot, the person is forgotten, and the page sends them to the provider. Resolves to the new access token.
 */
function renew(): Promise<string | null> {
  const using = manager;
  if (!using) return Promise.resolve(null);
  renewal ??= using
    .signinSilent()
    .then((user) => user?.access_token ?? null)
    .catch(async () => {
      await using.removeUser();
      return null;
    })
    .finally(() => {
      renewal = undefined;
    });
  return renewal;
}

/** The signed-in person's access token, renewed first when it has expired; null when no one is signed in. */
export async function signedInAccessToken(): Promise<string | null> {
  if (!current) return null;
  if (current.expired !== true) return current.access_token;
  return renew();
}

/**
 * The service refused `token` as a credential (403 "Not authenticated": it expired by the service's clock, or
 * the provider revoked it): renews once and returns the new token, or null when there is none to try (no one
 * signed in, or `token` was itself the fresh one).
 */
export async function renewAfterRefusal(token: string): Promise<string | null> {
  if (!current) return null;
  if (current.access_token !== token) return current.access_token;
  if (refusedFresh.has(token)) return null;
  const fresh = await renew();
  if (fresh !== null) refusedFresh.add(fresh);
  return fresh;
}

/**
 * Answers the provider in the hidden frame of a renewal (`SILENT_RENEW_PATH`): hands its answer to the portal
 * in the parent page. True when this page is that frame, and the app must not start in it.
 */
export async function answerSilentRenewal(auth: AuthConfig | undefined): Promise<boolean> {
  const base = (import.meta.env.BASE_URL ?? '/').replace(/\/+$/, '');
  if (!auth || window.location.pathname !== `${base}${SILENT_RENEW_PATH}`) return false;
  const oidc = await import('oidc-client-ts');
  await new oidc.UserManager(settingsOf(oidc, auth)).signinSilentCallback(window.location.href);
  return true;
}
