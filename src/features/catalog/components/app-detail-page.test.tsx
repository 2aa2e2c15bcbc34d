import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { apps, profiles } from '../../../test/fixtures';
import { renderRoute } from '../../../test/render';
import { api, http, HttpResponse, server } from '../../../test/server';

describe('application page', { timeout: 30_000 }, () => {
  it('lists versions in SemVer order, marks latest and pre-releases, and launches a profile', async () => {
    const asked: string[] = [];
    server.use(
      http.get(api('/cfg/apps/:id'), () => HttpResponse.json(apps[0])),
      http.get(api('/cfg/apps/:id/versions'), () =>
        HttpResponse.json({
          items: [
            { version: '1.9.0' },
            { version: '2.0.0-rc.1' },
            { version: '1.10.0' },
            { version: '1.2.0' },
          ],
        }),
      ),
      http.get(api('/cfg/apps/:id/versions/:version/profiles'), ({ params }) => {
        asked.push(String(params.version));
        return HttpResponse.json({ count: 2, items: profiles });
      }),
    );
    renderRoute('/apps/usd-viewer');
    const list = await screen.findByRole('list', { name: 'Versions' });
    const items = within(list).getAllByRole('button');
    expect(items.map((i) => i.textContent)).toEqual([
      '2.0.0-rc.1pre-release',
      '1.10.0latest',
      '1.9.0',
      '1.2.0',
    ]);
    expect(await screen.findByText('One GPU, 640x360.')).toBeInTheDocument();
    expect(asked).toEqual(['1.10.0']);
    expect(screen.getByRole('link', { name: 'Launch usd-viewer 1.10.0 with Default' })).toHaveAttribute(
      'href',
      '/launch?app=usd-viewer&version=1.10.0&profile=default',
    );
    await userEvent.click(items[0]!);
    await waitFor(() => expect(asked).toContain('2.0.0-rc.1'));
  });

  it('shows the picture of the application running beside its name, described, and nothing if it fails', async () => {
    server.use(
      http.get(api('/cfg/apps/:id'), () =>
        HttpResponse.json({ ...apps[0], picture: '/catalog-pictures/pictures/usd-viewer.webp' }),
      ),
      http.get(api('/cfg/apps/:id/versions'), () => HttpResponse.json({ items: [{ version: '1.0.0' }] })),
      http.get(api('/cfg/apps/:id/versions/:version/profiles'), () =>
        HttpResponse.json({ count: 2, items: profiles }),
      ),
    );
    renderRoute('/apps/usd-viewer');
    const picture = await screen.findByRole('img', { name: 'USD Viewer running in Streamgate' });
    expect(picture).toHaveAttribute('src', `${location.origin}/catalog-pictures/pictures/usd-viewer.webp`);
    expect(screen.getByRole('heading', { level: 1, name: 'USD Viewer' })).toBeVisible();
    fireEvent.error(picture);
    expect(screen.queryByRole('img', { name: /running in Streamgate/ })).toBeNull();
    // The page stays whole: its name, with its monogram, and its versions.
    expect(screen.getByRole('heading', { level: 1, name: 'USD Viewer' })).toBeVisible();
    expect(screen.getByTestId('app-monogram')).toHaveTextContent('UV');
  });

  it('says an application that does not exist', async () => {
    server.use(
      http.get(api('/cfg/apps/:id'), () => HttpResponse.json({ detail: 'Not found' }, { status: 404 })),
    );
    server.use(
      http.get(api('/cfg/apps/:id/versions'), () =>
        HttpResponse.json({ detail: 'Not found' }, { status: 404 }),
      ),
    );
    renderRoute('/apps/nope');
    expect(await screen.findByRole('alert')).toHaveTextContent('Application nope no longer exists');
  });
});
