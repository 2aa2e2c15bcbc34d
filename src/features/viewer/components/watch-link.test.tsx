import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { ready, sessionId } from '../../../test/fixtures';
import { api, http, HttpResponse, server } from '../../../test/server';
import { WatchLink } from './watch-link';

function renderWatchLink(title?: string) {
  const queryClient = new QueryClient({
    defaultOptions: { queries: { retry: false }, mutations: { retry: false } },
  });
  return render(
    <QueryClientProvider client={queryClient}>
      <WatchLink sessionId={sessionId} title={title} />
    </QueryClientProvider>,
  );
}

/** The service: a ready session, watch tickets numbered as they are made, and the stops of sharing it was asked. */
function service(stopAnswer: () => Response = () => new HttpResponse(null, { status: 204 })) {
  const stops: string[] = [];
  let made = 0;
  server.use(
    http.get(api('/stream/:id'), () => HttpResponse.json(ready)),
    http.post(api('/stream/:id/tickets'), () =>
      HttpResponse.json(
        { ticket: `watch-${++made}`, scope: 'watch', expires_at: '2030-01-01T00:00:00Z' },
        { status: 201 },
      ),
    ),
    http.delete(api('/stream/:id/tickets'), ({ request, params }) => {
      stops.push(`${String(params.id)} ${new URL(request.url).searchParams.get('scope')}`);
      return stopAnswer();
    }),
  );
  return stops;
}

const ticketOf = (link: HTMLElement) =>
  new URLSearchParams(new URL((link as HTMLInputElement).value).hash.slice(1)).get('ticket');

describe('WatchLink', () => {
  it("carries the session's name, for the page of whoever opens it to say what they watch", async () => {
    service();
    renderWatchLink('USD Viewer 1.2.0 (Small)');
    await userEvent.click(screen.getByRole('button', { name: 'Share a watch-only link' }));
    const link = (await screen.findByLabelText('Watch-only link')) as HTMLInputElement;
    expect(new URLSearchParams(new URL(link.value).hash.slice(1)).get('title')).toBe(
      'USD Viewer 1.2.0 (Small)',
    );
  });

  it('stops the sharing beside the link, says in words what that did, and shares a working link again', async () => {
    const stops = service();
    const user = userEvent.setup();
    renderWatchLink();
    await user.click(screen.getByRole('button', { name: 'Share a watch-only link' }));
    expect(ticketOf(await screen.findByLabelText('Watch-only link'))).toBe('watch-1');

    await user.click(screen.getByRole('button', { name: 'Stop sharing' }));
    expect(await screen.findByRole('status')).toHaveTextContent(
      'Sharing stopped: the watch-only links made so far no longer work, and anyone watching through one has ' +
        'been disconnected. A link you share from now on works.',
    );
    expect(stops).toEqual([`${sessionId} watch`]);
    // The link shown stopped working with the rest: it is gone, and a new one can be made; nothing is left to stop.
    expect(screen.queryByLabelText('Watch-only link')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Stop sharing' })).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Share a watch-only link' }));
    expect(ticketOf(await screen.findByLabelText('Watch-only link'))).toBe('watch-2');
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
  });

  it('offers no stop while nothing is shared, and one as soon as a link is', async () => {
    service();
    const user = userEvent.setup();
    renderWatchLink();
    expect(screen.getByRole('button', { name: 'Share a watch-only link' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Stop sharing' })).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Share a watch-only link' }));
    await screen.findByLabelText('Watch-only link');
    expect(screen.getByRole('button', { name: 'Stop sharing' })).toBeInTheDocument();
  });

  it('can stop a link made before this page was opened in this browser, and offers no stop after it', async () => {
    const stops = service();
    const user = userEvent.setup();
    const first = renderWatchLink();
    await user.click(screen.getByRole('button', { name: 'Share a watch-only link' }));
    await screen.findByLabelText('Watch-only link');
    // A reload: the link is no longer shown, but it still works, and can still be stopped.
    first.unmount();
    renderWatchLink();
    expect(screen.queryByLabelText('Watch-only link')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Stop sharing' }));
    expect(await screen.findByRole('status')).toHaveTextContent(/^Sharing stopped/);
    expect(stops).toHaveLength(1);
    expect(screen.queryByRole('button', { name: 'Stop sharing' })).not.toBeInTheDocument();
  });

  it('says why the sharing could not be stopped, and keeps the link it showed', async () => {
    service(() =>
      HttpResponse.json(
        { detail: 'USD Viewer 1.2.0 did not answer the stop of sharing; try again in a moment.' },
        { status: 503, headers: { 'retry-after': '5' } },
      ),
    );
    const user = userEvent.setup();
    renderWatchLink();
    await user.click(screen.getByRole('button', { name: 'Share a watch-only link' }));
    await screen.findByLabelText('Watch-only link');
    await user.click(screen.getByRole('button', { name: 'Stop sharing' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'USD Viewer 1.2.0 did not answer the stop of sharing; try again in a moment.',
    );
    expect(screen.getByLabelText('Watch-only link')).toBeInTheDocument();
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
  });

  it('offers no stop where the service issues no tickets: its link is for people who sign in', async () => {
    server.use(
      http.get(api('/stream/:id'), () => HttpResponse.json(ready)),
      http.post(api('/stream/:id/tickets'), () =>
        HttpResponse.json({ detail: 'Not Found' }, { status: 404 }),
      ),
    );
    const user = userEvent.setup();
    renderWatchLink();
    await user.click(screen.getByRole('button', { name: 'Share a watch-only link' }));
    expect(((await screen.findByLabelText('Watch-only link')) as HTMLInputElement).value).toMatch(
      /\/sessions\/.+\?mode=watch$/,
    );
    expect(screen.queryByRole('button', { name: 'Stop sharing' })).not.toBeInTheDocument();
  });
});
