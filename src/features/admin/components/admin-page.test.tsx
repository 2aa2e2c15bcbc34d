import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { apps, profiles } from '../../../test/fixtures';
import { narrowScreen } from '../../../test/narrow-screen';
import { renderRoute } from '../../../test/render';
import { api, http, HttpResponse, server } from '../../../test/server';

afterEach(() => vi.unstubAllGlobals());

describe('profile availability page', { timeout: 30_000 }, () => {
  it('checks every profile for every application version and shows each status with its reason', async () => {
    let inFlight = 0;
    let most = 0;
    server.use(
      http.get(api('/cfg/apps'), () => HttpResponse.json({ count: 2, items: apps.slice(0, 2) })),
      http.get(api('/cfg/apps/:id/versions'), () =>
        HttpResponse.json({ items: [{ version: '1.0.0' }, { version: '2.0.0' }] }),
      ),
      http.get(api('/cfg/apps/:id/versions/:version/profiles'), ({ params }) =>
        HttpResponse.json({
          items: params.id === '*' || params.version === '2.0.0' ? profiles : profiles.slice(0, 1),
        }),
      ),
      http.get(api('/cfg/apps/:id/versions/:version/profiles/:profile'), async ({ params }) => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        await new Promise((r) => setTimeout(r, 5));
        inFlight -= 1;
        if (params.id === 'usd-composer' && params.profile === 'default')
          return HttpResponse.json({ detail: 'Not allowed for this role.' }, { status: 403 });
        if (params.profile === 'small' && params.version === '1.0.0')
          return HttpResponse.json({ detail: 'Profile does not apply.' }, { status: 404 });
        return HttpResponse.json(profiles.find((p) => p.id === params.profile));
      }),
    );
    renderRoute('/admin/profiles');
    const table = await screen.findByRole('table', { name: 'Profile availability' }, { timeout: 5000 });
    expect(within(table).getAllByRole('row')).toHaveLength(5);
    expect(within(table).getByLabelText('usd-viewer 1.0.0 default: ok, resolves')).toBeInTheDocument();
    expect(
      within(table).getByLabelText('usd-viewer 1.0.0 small: 404, Profile does not apply.'),
    ).toBeInTheDocument();
    expect(within(table).getByLabelText('usd-viewer 2.0.0 small: ok, resolves')).toBeInTheDocument();
    expect(
      within(table).getByLabelText('usd-composer 2.0.0 default: 403, Not allowed for this role.'),
    ).toBeInTheDocument();
    expect(most).toBeLessThanOrEqual(6);

    await userEvent.type(screen.getByRole('textbox', { name: 'Filter applications' }), 'composer');
    expect(within(table).getAllByRole('row')).toHaveLength(3);
    const csv = screen.getByRole('link', { name: 'Export CSV' });
    const text = decodeURIComponent(csv.getAttribute('href')!.split(',').slice(1).join(','));
    expect(text).toContain('usd-composer,2.0.0,default,403,Not allowed for this role.');
  });

  it('stacks one card an application version on a narrow screen', async () => {
    narrowScreen();
    server.use(
      http.get(api('/cfg/apps'), () => HttpResponse.json({ count: 1, items: apps.slice(0, 1) })),
      http.get(api('/cfg/apps/:id/versions'), () => HttpResponse.json({ items: [{ version: '1.0.0' }] })),
      http.get(api('/cfg/apps/:id/versions/:version/profiles'), () => HttpResponse.json({ items: profiles })),
      http.get(api('/cfg/apps/:id/versions/:version/profiles/:profile'), ({ params }) =>
        HttpResponse.json(profiles.find((p) => p.id === params.profile)),
      ),
    );
    renderRoute('/admin/profiles');
    const list = await screen.findByRole('list', { name: 'Profile availability' });
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
    const card = within(list).getByRole('listitem');
    expect(within(card).getByRole('heading', { name: 'USD Viewer (usd-viewer) 1.0.0' })).toBeInTheDocument();
    expect(within(card).getByLabelText('usd-viewer 1.0.0 small: ok, resolves')).toBeInTheDocument();
  });

  it('counts the profiles checked while it runs, and starts over when checked again', async () => {
    // Requests wait on gates the test opens, so what it sees mid-check does not depend on timing.
    const gate = () => {
      let open = () => {};
      const opened = new Promise<void>((resolve) => (open = resolve));
      return { open, opened };
    };
    const cellsHeld = gate();
    const appsHeld = gate();
    let appRuns = 0;
    let cells = 0;
    server.use(
      http.get(api('/cfg/apps'), async () => {
        // The first run lists the applications at once, the second when the test says.
        appRuns += 1;
        if (appRuns > 1) await appsHeld.opened;
        return HttpResponse.json({ count: 2, items: apps.slice(0, 2) });
      }),
      http.get(api('/cfg/apps/:id/versions'), () =>
        HttpResponse.json({ items: [{ version: '1.0.0' }, { version: '2.0.0' }] }),
      ),
      http.get(api('/cfg/apps/:id/versions/:version/profiles'), () => HttpResponse.json({ items: profiles })),
      http.get(api('/cfg/apps/:id/versions/:version/profiles/:profile'), async ({ params }) => {
        // The first two of the eight answer at once, the rest when the test says.
        cells += 1;
        if (cells > 2) await cellsHeld.opened;
        return HttpResponse.json(profiles.find((p) => p.id === params.profile));
      }),
    );
    renderRoute('/admin/profiles');

    expect(await screen.findByText('Checked 2 of 8 profiles')).toBeInTheDocument();
    const bar = screen.getByRole('progressbar', { name: 'Checking profiles' });
    expect(bar).toHaveAttribute('aria-valuenow', '25');
    expect(bar).toHaveAttribute('aria-valuetext', 'Checked 2 of 8 profiles');
    expect(screen.queryByRole('table', { name: 'Profile availability' })).not.toBeInTheDocument();

    cellsHeld.open();
    const table = await screen.findByRole('table', { name: 'Profile availability' });
    expect(within(table).getAllByRole('row')).toHaveLength(5);
    expect(screen.queryByRole('progressbar')).not.toBeInTheDocument();

    // Held before the total is known, the new run shows the indeterminate bar, not the last count.
    await userEvent.click(screen.getByRole('button', { name: 'Check again' }));
    const again = await screen.findByRole('progressbar', { name: 'Checking profiles' });
    expect(again).not.toHaveAttribute('aria-valuenow');
    expect(screen.queryByText(/^Checked \d+ of/)).not.toBeInTheDocument();

    appsHeld.open();
    await waitFor(() => expect(screen.queryByRole('progressbar')).not.toBeInTheDocument());
    expect(screen.getByRole('button', { name: 'Check again' })).toBeEnabled();
  });

  it('shows what holds the GPUs where the service tells', async () => {
    server.use(
      http.get(api('/cfg/apps'), () => HttpResponse.json({ count: 0, items: [] })),
      http.get(api('/cfg/apps/:id/versions/:version/profiles'), () => HttpResponse.json({ items: [] })),
      http.get(api('/admin/capacity'), () =>
        HttpResponse.json({
          capacity: 2,
          running: 1,
          warm: 1,
          queued: 0,
          by_profile: [{ profile: 'instant', running: 0, queued: 0, warm: 1, warm_target: 1 }],
        }),
      ),
    );
    renderRoute('/admin/profiles');
    const section = await screen.findByRole('region', { name: 'Capacity' });
    expect(section).toHaveTextContent(
      '1 of 2 GPUs in use by sessions, 1 held by warm applications, 0 free; 0 waiting.',
    );
    expect(within(section).getByRole('listitem')).toHaveTextContent(
      'instant: 0 running, 0 waiting, 1 of 1 warm',
    );
  });

  it('hides the capacity where the service lacks it', async () => {
    server.use(
      http.get(api('/cfg/apps'), () => HttpResponse.json({ count: 0, items: [] })),
      http.get(api('/cfg/apps/:id/versions/:version/profiles'), () => HttpResponse.json({ items: [] })),
    );
    renderRoute('/admin/profiles');
    await screen.findByRole('heading', { name: 'Profile availability' });
    await waitFor(() => expect(screen.getByRole('button', { name: 'Check again' })).toBeEnabled());
    expect(screen.queryByRole('region', { name: 'Capacity' })).toBeNull();
  });
});
