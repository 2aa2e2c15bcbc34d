import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { apps, profiles } from '../../../test/fixtures';
import { renderRoute } from '../../../test/render';
import { api, http, HttpResponse, server } from '../../../test/server';

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
});
