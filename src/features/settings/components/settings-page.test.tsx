import { fireEvent, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { getConfig } from '../../../lib/config';
import { renderRoute } from '../../../test/render';
import { http, HttpResponse, server } from '../../../test/server';

describe('settings page', { timeout: 30_000 }, () => {
  it('saves overrides for this browser and sends the token as a bearer header', async () => {
    const auth: (string | null)[] = [];
    server.use(
      http.get('*/catalog/cfg/apps', ({ request }) => {
        auth.push(request.headers.get('Authorization'));
        return HttpResponse.json({ count: 2, items: [] }, { status: 202 });
      }),
      http.get('*/streaming/stream', () => HttpResponse.json({ detail: 'Not Found' }, { status: 404 })),
    );
    renderRoute('/settings');
    // Whole values at once: typing character by character adds nothing here but time.
    const catalog = await screen.findByRole('textbox', { name: 'Catalog URL' });
    fireEvent.change(catalog, { target: { value: '/catalog' } });
    fireEvent.change(screen.getByRole('textbox', { name: 'Stream URL' }), {
      target: { value: '/streaming' },
    });
    fireEvent.change(screen.getByLabelText('Access token'), { target: { value: 's3cret' } });
    await userEvent.click(screen.getByRole('button', { name: 'Test connection' }));
    expect(await screen.findByText('Catalog API answered 202: 2 applications.')).toBeInTheDocument();
    expect(screen.getByText(/Streaming API answered 404: it does not list sessions/)).toBeInTheDocument();
    expect(auth).toEqual(['Bearer s3cret']);
    expect(getConfig().catalogUrl).toBe('/api');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Settings saved.')).toBeInTheDocument();
    expect(getConfig()).toMatchObject({ catalogUrl: '/catalog', streamUrl: '/streaming', token: 's3cret' });
    await userEvent.click(screen.getByRole('button', { name: 'Reset' }));
    expect(getConfig()).toMatchObject({ catalogUrl: '/api', token: null });
  });

  it('reports an API that cannot be reached', async () => {
    server.use(
      http.get('*/api/cfg/apps', () => HttpResponse.error()),
      http.get('*/api/stream', () => HttpResponse.json({ detail: 'Not authenticated' }, { status: 403 })),
    );
    renderRoute('/settings');
    await userEvent.click(await screen.findByRole('button', { name: 'Test connection' }));
    expect(await screen.findByText(/Catalog API: The service could not be reached/)).toBeInTheDocument();
    expect(screen.getByText(/Streaming API: You do not have permission/)).toBeInTheDocument();
  });
});
