import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { apps } from '../test/fixtures';
import { renderRoute } from '../test/render';
import { api, http, HttpResponse, server } from '../test/server';
import { THEME_KEY } from './theme-mode';

describe('app shell', { timeout: 30_000 }, () => {
  it('toggles the theme and remembers it', async () => {
    server.use(http.get(api('/cfg/apps'), () => HttpResponse.json({ count: 0, items: [] })));
    localStorage.setItem(THEME_KEY, 'light');
    renderRoute('/settings');
    await userEvent.click(await screen.findByRole('button', { name: 'Switch to dark theme' }));
    expect(screen.getByRole('button', { name: 'Switch to light theme' })).toBeInTheDocument();
    expect(localStorage.getItem(THEME_KEY)).toBe('dark');
  });

  it('sends a server failure (5xx) on first load to the route error boundary', async () => {
    server.use(
      http.get(api('/cfg/apps'), () =>
        HttpResponse.json({ detail: 'Database unavailable.' }, { status: 500 }),
      ),
    );
    // React and React Router report an error a boundary caught on the console: expected here, so asserted
    // rather than printed among the output of passing tests.
    const reported = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const warned = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      renderRoute('/apps');
      expect(await screen.findByRole('heading', { name: 'Something went wrong' })).toBeInTheDocument();
      expect(screen.getByRole('alert')).toHaveTextContent('The service failed (500): Database unavailable.');
      const said = [...reported.mock.calls, ...warned.mock.calls].flat().map(String).join(' ');
      expect(said).toContain('Database unavailable.');
    } finally {
      reported.mockRestore();
      warned.mockRestore();
    }
  });

  it('shows one notice when a background refetch of shown data fails', async () => {
    let fail = false;
    server.use(
      http.get(api('/cfg/apps'), () =>
        fail
          ? HttpResponse.json({ detail: 'Busy.' }, { status: 429 })
          : HttpResponse.json({ count: 3, items: apps }),
      ),
    );
    const { queryClient } = renderRoute('/apps');
    expect(await screen.findByRole('link', { name: 'USD Viewer' })).toBeInTheDocument();
    fail = true;
    await queryClient.refetchQueries({ queryKey: ['apps'] });
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('Could not refresh: Busy.'));
    expect(screen.getByRole('link', { name: 'USD Viewer' })).toBeInTheDocument();
  });

  it('opens the navigation from the menu button and closes it once a page is chosen', async () => {
    server.use(http.get(api('/cfg/apps'), () => HttpResponse.json({ count: 0, items: [] })));
    const { router } = renderRoute('/apps');
    const menu = await screen.findByRole('button', { name: 'Open navigation' });
    expect(menu).toHaveAttribute('aria-expanded', 'false');
    await userEvent.click(menu);
    const drawer = await screen.findByRole('presentation');
    await userEvent.click(within(drawer).getByRole('link', { name: 'Settings' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/settings'));
    await waitFor(() => expect(screen.queryByRole('presentation')).not.toBeInTheDocument());
    expect(menu).toHaveAttribute('aria-expanded', 'false');
  });

  it("shows the app bar and a progress indicator while a first page's data is on the way", async () => {
    let answer: () => void = () => undefined;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    server.use(
      http.get(api('/cfg/apps'), async () => {
        await answered;
        return HttpResponse.json({ count: 3, items: apps });
      }),
    );
    renderRoute('/apps');
    // The loader waits for the catalog (up to a second); the page around it is there at once.
    expect(await screen.findByRole('navigation', { name: 'Main' }, { timeout: 500 })).toBeInTheDocument();
    expect(screen.getByRole('progressbar', { name: 'Loading page' })).toBeInTheDocument();
    answer();
    expect(await screen.findByRole('link', { name: 'USD Viewer' })).toBeInTheDocument();
    expect(screen.queryByRole('progressbar', { name: 'Loading page' })).not.toBeInTheDocument();
  });

  it('lights one navigation item: the catalog on the home page, Launch on the wizard', async () => {
    server.use(http.get(api('/cfg/apps'), () => HttpResponse.json({ count: 3, items: apps })));
    const lit = () =>
      within(screen.getByRole('navigation', { name: 'Main' }))
        .getAllByRole('link')
        .filter((link) => link.getAttribute('aria-current') === 'page')
        .map((link) => link.textContent);
    const home = renderRoute('/');
    expect(await screen.findByRole('link', { name: 'USD Viewer' })).toBeInTheDocument();
    expect(lit()).toEqual(['Catalog']);
    home.unmount();
    renderRoute('/launch');
    expect(await screen.findByRole('heading', { name: 'Launch a session' })).toBeInTheDocument();
    expect(lit()).toEqual(['Launch']);
  });

  it('has a page for an unknown address', async () => {
    renderRoute('/no/such/page');
    expect(await screen.findByRole('heading', { name: 'Page not found' })).toBeInTheDocument();
  });
});
