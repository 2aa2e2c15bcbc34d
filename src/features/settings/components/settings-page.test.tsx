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
    expect(await screen.findByText(/Catalog API: no answer from http:\/\/localhost/)).toBeInTheDocument();
    expect(screen.getByText(/Streaming API: You do not have permission/)).toBeInTheDocument();
  });

  it('says what really came back: a page that is not the API, a service that refuses this origin', async () => {
    server.use(
      http.get('*/api/cfg/apps', () =>
        HttpResponse.text('<!doctype html><title>Home</title>', {
          headers: { 'Content-Type': 'text/html; charset=utf-8' },
        }),
      ),
      // What a browser does for a service without CORS: the readable request fails, the opaque one goes out.
      http.get('*/api/stream', ({ request }) =>
        request.mode === 'no-cors' ? new HttpResponse(null, { status: 200 }) : HttpResponse.error(),
      ),
    );
    renderRoute('/settings');
    await userEvent.click(await screen.findByRole('button', { name: 'Test connection' }));
    expect(
      await screen.findByText(
        /^Catalog API answered 200 OK with an HTML page, not the API's JSON: check that http:\/\/localhost(:\d+)?\/api\/cfg\/apps is the API's address\.$/,
      ),
    ).toBeInTheDocument();
    expect(screen.queryByText(/502/)).not.toBeInTheDocument();
    expect(
      screen.getByText(
        /^Streaming API: http:\/\/localhost(:\d+)? answers, but does not let this page read its answers \(CORS\)/,
      ),
    ).toBeInTheDocument();
  });

  it('refuses an address that is not http(s) or a path, at the field, and says why Save waits', async () => {
    server.use(http.get('*/api/stream', () => HttpResponse.json({ count: 0, items: [] })));
    renderRoute('/settings');
    const reset = await screen.findByRole('button', { name: 'Reset' });
    expect(reset).toBeDisabled();
    expect(reset).toHaveAccessibleDescription('Nothing to reset: this browser uses the served settings.');
    const catalog = screen.getByRole('textbox', { name: 'Catalog URL' });
    fireEvent.change(catalog, { target: { value: 'javascript:alert(1)' } });
    expect(catalog).toHaveAttribute('aria-invalid', 'true');
    expect(catalog).toHaveAccessibleDescription(
      'Only an http(s) address or a path such as /api can be used, not a “javascript:” address.',
    );
    const save = screen.getByRole('button', { name: 'Save' });
    expect(save).toBeDisabled();
    expect(save).toHaveAccessibleDescription('Fix the catalog URL above to save.');
    fireEvent.submit(screen.getByRole('form', { name: 'Connection settings' }));
    expect(getConfig().catalogUrl).toBe('/api');
    await userEvent.click(screen.getByRole('button', { name: 'Test connection' }));
    expect(await screen.findByText(/^Catalog API not tested: Only an http\(s\) address/)).toBeInTheDocument();
  });
});
