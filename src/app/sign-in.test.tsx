/** Sign-in with the site's identity provider (CONTRACT §22), through the portal's real routes. */
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { getSignedInUser } from '../lib/auth/sign-in';
import { ready } from '../test/fixtures';
import {
  ALICE,
  AUTH,
  identityProvider,
  ISSUER,
  portalThatSignsIn,
  signedInPortal,
  stateOf,
} from '../test/identity-provider';
import { renderRoute } from '../test/render';
import { api, http, HttpResponse, server } from '../test/server';

/** GET /stream answers only a request with `token`, as the service does; records what each request carried. */
function serviceAccepting(token: string) {
  const seen: (string | null)[] = [];
  server.use(
    http.get(api('/stream'), ({ request }) => {
      const credential = request.headers.get('Authorization');
      seen.push(credential);
      if (credential !== `Bearer ${token}`)
        return HttpResponse.json({ detail: 'Not authenticated' }, { status: 403 });
      return HttpResponse.json({ offset: 0, limit: 500, count: 1, items: [ready] });
    }),
  );
  return seen;
}

/** Every value this browser keeps, in both storages. */
function stored(storage: Storage): string {
  return Object.keys(storage)
    .map((key) => storage.getItem(key))
    .join('\n');
}

describe('sign-in', { timeout: 30_000 }, () => {
  it('sends a person who is not signed in to the provider, and brings them back to the page they asked for', async () => {
    const { tokenRequests } = identityProvider();
    const browser = await portalThatSignsIn();
    const { router } = renderRoute('/sessions?person=alice');

    await waitFor(() => expect(browser.urls).toHaveLength(1));
    const authorize = new URL(browser.urls[0]!);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${ISSUER}/auth`);
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
      client_id: AUTH.clientId,
      response_type: 'code',
      scope: 'openid profile',
      redirect_uri: `${window.location.origin}/signin-callback`,
      code_challenge_method: 'S256',
    });
    // The page asked for travels in this tab's storage, under the state: not in the address.
    expect(authorize.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(authorize.search).not.toContain('sessions');

    // The provider sends the browser back with a code.
    await router.navigate(`/signin-callback?code=the-code&state=${stateOf(browser)}`);
    await waitFor(() => expect(router.state.location.pathname).toBe('/sessions'));
    expect(router.state.location.search).toBe('?person=alice');
    // Replaced, so that neither the code nor the state stays in the history.
    expect(router.state.historyAction).toBe('REPLACE');
    expect(tokenRequests[0]?.get('code')).toBe('the-code');
    expect(tokenRequests[0]?.get('code_verifier')).toMatch(/^[\w-]{43,128}$/);
    expect(getSignedInUser()?.access_token).toBe('access-1');
    // Tokens stay in this tab's sessionStorage: never localStorage.
    expect(stored(localStorage)).not.toContain('access-1');
    expect(stored(sessionStorage)).toContain('access-1');
  });

  it('says why when the provider refused the sign-in, and offers it again', async () => {
    identityProvider();
    const browser = await portalThatSignsIn();
    renderRoute(`/signin-callback?error=access_denied&error_description=Not+allowed+here&state=x`);
    expect(await screen.findByText(/The sign-in could not be completed/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Sign in again' }));
    await waitFor(() => expect(browser.urls).toHaveLength(1));
  });

  it('shows the person’s name in the app bar, and signs out at the provider', async () => {
    const { browser } = await signedInPortal();
    serviceAccepting('access-1');
    renderRoute('/sessions');
    const bar = screen.getByRole('banner');
    expect(await within(bar).findByText(ALICE.name)).toBeInTheDocument();

    await userEvent.click(within(bar).getByRole('button', { name: 'Sign out' }));
    await waitFor(() => expect(browser.urls).toHaveLength(2));
    const logout = new URL(browser.urls[1]!);
    expect(`${logout.origin}${logout.pathname}`).toBe(`${ISSUER}/logout`);
    expect(logout.searchParams.get('post_logout_redirect_uri')).toBe(`${window.location.origin}/`);
    expect(logout.searchParams.get('id_token_hint')).toEqual(expect.any(String));
    expect(getSignedInUser()).toBeNull();
    expect(stored(sessionStorage)).not.toContain('access-1');
    // Signed out, the portal waits to be asked rather than sending them straight back.
    expect(await screen.findByRole('heading', { name: 'You have signed out' })).toBeInTheDocument();
    expect(within(bar).getByRole('button', { name: 'Sign in' })).toBeInTheDocument();
    expect(browser.urls).toHaveLength(2);
  });

  it('signs out of the portal where the provider has no logout', async () => {
    await signedInPortal({ logout: false });
    serviceAccepting('access-1');
    renderRoute('/sessions');
    await userEvent.click(await screen.findByRole('button', { name: 'Sign out' }));
    expect(await screen.findByRole('heading', { name: 'You have signed out' })).toBeInTheDocument();
    expect(getSignedInUser()).toBeNull();
  });

  it('sends the signed-in person’s access token with every request', async () => {
    await signedInPortal();
    const seen = serviceAccepting('access-1');
    renderRoute('/sessions');
    expect(await screen.findByRole('table', { name: 'Sessions' })).toBeInTheDocument();
    expect(new Set(seen)).toEqual(new Set(['Bearer access-1']));
  });

  it('renews a token the service refuses, and asks again with the new one', async () => {
    const { provider } = await signedInPortal();
    // The service's clock says access-1 has expired.
    const seen = serviceAccepting('access-2');
    renderRoute('/sessions');
    expect(await screen.findByRole('table', { name: 'Sessions' })).toBeInTheDocument();
    expect(seen[0]).toBe('Bearer access-1');
    expect(seen).toContain('Bearer access-2');
    // The running and the ended sessions were both refused: one renewal served them both.
    expect(provider.tokenRequests).toHaveLength(2);
    const renewal = provider.tokenRequests[1]!;
    expect(renewal.get('grant_type')).toBe('refresh_token');
    expect(renewal.get('refresh_token')).toBe('refresh-1');
    expect(getSignedInUser()?.access_token).toBe('access-2');
  });

  it('sends the person to sign in again when their sign-in cannot be renewed', async () => {
    const { browser } = await signedInPortal({ refresh: 'refused' });
    serviceAccepting('a token the provider no longer gives');
    renderRoute('/sessions');
    await waitFor(() => expect(browser.urls).toHaveLength(2));
    expect(new URL(browser.urls[1]!).pathname).toBe('/realms/site/auth');
    expect(getSignedInUser()).toBeNull();
  });

  it('says so when the provider cannot be reached, and lets the person try again', async () => {
    server.use(http.get(`${ISSUER}/.well-known/openid-configuration`, () => HttpResponse.error()));
    const browser = await portalThatSignsIn();
    renderRoute('/sessions');
    expect(await screen.findByText(/The sign-in page could not be opened/)).toBeInTheDocument();
    identityProvider();
    await userEvent.click(within(screen.getByRole('main')).getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(browser.urls).toHaveLength(1));
  });

  it('plays a watch link without signing in', async () => {
    identityProvider();
    const browser = await portalThatSignsIn();
    renderRoute('/watch');
    expect(await screen.findByRole('heading', { name: 'Watch a session' })).toBeInTheDocument();
    expect(screen.queryByLabelText('Taking you to sign in')).not.toBeInTheDocument();
    expect(browser.urls).toEqual([]);
  });
});
