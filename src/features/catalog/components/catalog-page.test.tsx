import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { Application } from '../../../lib/api-client';
import { apps, profiles, ready, sessionId } from '../../../test/fixtures';
import { renderRoute } from '../../../test/render';
import { api, http, HttpResponse, server } from '../../../test/server';

function serveApps(seen: string[][] = []) {
  server.use(
    http.get(api('/cfg/apps'), ({ request }) => {
      const tags = new URL(request.url).searchParams.getAll('tags');
      seen.push(tags);
      const items = apps.filter((a) => tags.every((t) => a.tags.includes(t)));
      return HttpResponse.json({ count: items.length, items });
    }),
  );
  return seen;
}

/** These applications, whatever the query. */
function serveTheseApps(items: Application[]) {
  server.use(http.get(api('/cfg/apps'), () => HttpResponse.json({ count: items.length, items })));
}

describe('catalog page', { timeout: 30_000 }, () => {
  it('lists applications with name, description and tags', async () => {
    serveApps();
    renderRoute('/');
    const list = await screen.findByRole('region', { name: 'Applications' });
    expect(within(list).getAllByRole('article')).toHaveLength(3);
    expect(screen.getByRole('link', { name: 'USD Viewer' })).toHaveAttribute('href', '/apps/usd-viewer');
    expect(screen.getByText('Explore USD stages.')).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('3 applications');
  });

  it('offers Launch on each card, to the review of that application', async () => {
    serveApps();
    renderRoute('/');
    const card = await screen.findByRole('article', { name: 'USD Viewer' });
    expect(within(card).getByRole('link', { name: 'Launch USD Viewer' })).toHaveAttribute(
      'href',
      '/launch?app=usd-viewer&step=review',
    );
    expect(within(card).getByRole('link', { name: 'Launch USD Viewer' })).toHaveTextContent('Launch');
    // The application's page stays, at its name.
    expect(within(card).getByRole('link', { name: 'USD Viewer' })).toHaveAttribute(
      'href',
      '/apps/usd-viewer',
    );
    expect(screen.getAllByRole('link', { name: /^Launch / })).toHaveLength(3);
  });

  it("launches in two steps from the keyboard: the card's Launch, then the review's", async () => {
    serveApps();
    const posted: unknown[] = [];
    server.use(
      http.get(api('/cfg/apps/:id/versions'), () =>
        HttpResponse.json({ count: 1, items: [{ version: '1.10.0', arguments: [] }] }),
      ),
      http.get(api('/cfg/apps/:id/versions/:version/profiles'), () =>
        HttpResponse.json({ count: profiles.length, items: profiles }),
      ),
      http.post(api('/stream'), async ({ request }) => {
        posted.push(await request.json());
        return HttpResponse.json(ready);
      }),
    );
    const { router } = renderRoute('/');
    const launch = await screen.findByRole('link', { name: 'Launch USD Composer' });
    for (let i = 0; i < 40 && document.activeElement !== launch; i++) await userEvent.tab();
    expect(launch).toHaveFocus();
    await userEvent.keyboard('{Enter}');
    const summary = await screen.findByRole('table', { name: 'Launch summary' });
    expect(
      within(summary).getByRole('row', { name: 'Application USD Composer (usd-composer)' }),
    ).toBeVisible();
    expect(within(summary).getByRole('row', { name: 'Profile Default (default)' })).toBeVisible();
    await userEvent.click(screen.getByRole('button', { name: 'Launch' }));
    await waitFor(() => expect(router.state.location.pathname).toBe(`/sessions/${sessionId}`));
    expect(posted).toEqual([{ id: 'usd-composer', version: 'latest', profile: 'default' }]);
  });

  it("shows the application's picture where the catalog has one, else its monogram", async () => {
    serveTheseApps([
      { ...apps[0]!, icon: '/catalog-icons/icons/usd-viewer.png' },
      { ...apps[1]!, icon: '/catalog-icons/icons/gone.png' },
      apps[2]!,
    ]);
    renderRoute('/');
    const card = (name: string) => screen.findByRole('article', { name });
    const picture = (await card('USD Viewer')).querySelector('img');
    expect(picture).toHaveAttribute('src', `${location.origin}/catalog-icons/icons/usd-viewer.png`);
    // Decorative: the card names the application.
    expect(picture).toHaveAttribute('alt', '');
    expect(within(await card('Evil App')).getByTestId('app-monogram')).toHaveTextContent('EA');
    // A picture that does not load gives way to the monogram.
    const gone = await card('USD Composer');
    fireEvent.error(gone.querySelector('img')!);
    expect(within(gone).getByTestId('app-monogram')).toHaveTextContent('UC');
    expect(gone.querySelector('img')).toBeNull();
  });

  it('shows the picture of the application running at the top of its card, else its icon', async () => {
    serveTheseApps([
      { ...apps[0]!, picture: '/catalog-pictures/pictures/usd-viewer.webp' },
      { ...apps[1]!, icon: '/catalog-icons/icons/composer.svg', picture: 'https://shots.example/gone.webp' },
      apps[2]!,
    ]);
    renderRoute('/');
    const card = (name: string) => screen.findByRole('article', { name });
    const viewer = await card('USD Viewer');
    const picture = viewer.querySelector('img');
    expect(picture).toHaveAttribute('src', `${location.origin}/catalog-pictures/pictures/usd-viewer.webp`);
    // Decorative, as the icon was: the card's heading names the application right under it.
    expect(picture).toHaveAttribute('alt', '');
    expect(picture).toHaveAttribute('loading', 'lazy');
    expect(within(viewer).queryByTestId('app-monogram')).toBeNull();
    // A picture that does not load gives way to the icon, as if there were none: no broken image.
    const composer = await card('USD Composer');
    expect(composer.querySelector('img')).toHaveAttribute('src', 'https://shots.example/gone.webp');
    fireEvent.error(composer.querySelector('img')!);
    expect(composer.querySelectorAll('img')).toHaveLength(1);
    expect(composer.querySelector('img')).toHaveAttribute(
      'src',
      `${location.origin}/catalog-icons/icons/composer.svg`,
    );
    // And without a picture or icon, the monogram as before.
    expect(within(await card('Evil App')).getByTestId('app-monogram')).toHaveTextContent('EA');
  });

  it('gives the search, tags and sort boxes one size', async () => {
    serveApps();
    renderRoute('/');
    const search = await screen.findByRole('searchbox', { name: 'Search applications' });
    // The tag field's own code comes a moment after the page.
    const tags = await screen.findByRole('combobox', { name: 'Tags' });
    const sort = screen.getByRole('combobox', { name: 'Sort by' });
    for (const box of [search, tags, sort]) {
      expect(box.closest('.MuiInputBase-root')).toHaveClass('MuiInputBase-sizeSmall');
    }
  });

  it('shows a description holding HTML as plain text', async () => {
    serveApps();
    const { container } = renderRoute('/apps');
    expect(await screen.findByText('<img src=x onerror="window.pwned=1"><b>bold</b>')).toBeInTheDocument();
    expect(container.querySelector('img[src="x"]')).toBeNull();
    expect(container.querySelector('b')).toBeNull();
  });

  it('sends the tag filter to the service as tags', async () => {
    const seen = serveApps();
    renderRoute('/apps?tags=editor');
    expect(await screen.findByRole('link', { name: 'USD Composer' })).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'USD Viewer' })).not.toBeInTheDocument();
    expect(seen).toContainEqual(['editor']);
  });

  it('filters by text and sorts in the URL', async () => {
    serveApps();
    const { router } = renderRoute('/apps?sort=name-desc');
    await screen.findByRole('link', { name: 'USD Viewer' });
    const names = screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent);
    expect(names).toEqual(['USD Viewer', 'USD Composer', 'Evil App']);
    await userEvent.type(screen.getByRole('searchbox', { name: 'Search applications' }), 'compose');
    expect(screen.getAllByRole('article')).toHaveLength(1);
    expect(router.state.location.search).toContain('q=compose');
  });

  it('says so when nothing matches', async () => {
    serveApps();
    renderRoute('/apps?q=nothing-like-this');
    expect(await screen.findByText('No applications match these filters.')).toBeInTheDocument();
  });

  it('accepts a 202 answer and a bare list without envelope fields', async () => {
    server.use(
      http.get(api('/cfg/apps'), () => HttpResponse.json({ items: apps.slice(0, 1) }, { status: 202 })),
    );
    renderRoute('/');
    expect(await screen.findByRole('link', { name: 'USD Viewer' })).toBeInTheDocument();
  });

  it('shows a 403 in words, with the detail given as a string', async () => {
    server.use(
      http.get(api('/cfg/apps'), () => HttpResponse.json({ detail: 'Not authenticated' }, { status: 403 })),
    );
    renderRoute('/');
    expect(await screen.findByRole('alert')).toHaveTextContent(/permission.*Not authenticated/);
  });

  it('offers Retry after a network failure, and recovers', async () => {
    let fail = true;
    server.use(
      http.get(api('/cfg/apps'), () =>
        fail ? HttpResponse.error() : HttpResponse.json({ count: 3, items: apps }),
      ),
    );
    renderRoute('/');
    expect(await screen.findByRole('alert')).toHaveTextContent('could not be reached');
    fail = false;
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByRole('link', { name: 'USD Viewer' })).toBeInTheDocument();
  });

  it('pages through thousands of applications', async () => {
    const many = Array.from({ length: 5000 }, (_, i) => ({
      id: `app-${String(i).padStart(4, '0')}`,
      name: `App ${String(i).padStart(4, '0')}`,
      description: 'Generated.',
      tags: [`t${i % 7}`],
    }));
    server.use(http.get(api('/cfg/apps'), () => HttpResponse.json({ count: many.length, items: many })));
    renderRoute('/apps?page=3');
    expect(await screen.findByRole('link', { name: 'App 0048' })).toBeInTheDocument();
    expect(screen.getAllByRole('article')).toHaveLength(24);
    expect(screen.getByRole('button', { name: 'Page 209' })).toBeInTheDocument();
  });
});
