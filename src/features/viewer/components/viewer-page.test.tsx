import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { pollDelay } from '../../../lib/queries/session-queries';
import { answered, useFakeTime } from '../../../test/fake-time';
import { apps, pending, profiles, ready, sessionId } from '../../../test/fixtures';

const ticket = { ticket: 'control-ticket', scope: 'control', expires_at: '2030-01-01T00:00:00Z' };
import { renderRoute } from '../../../test/render';
import { api, http, HttpResponse, server } from '../../../test/server';

// The viewer is lazy-loaded; its first import in a test file can take seconds on a busy machine.
const loading = { timeout: 10_000 };

// jsdom has no WebRTC: a ready session therefore ends in the "cannot play" failure, which is enough to
// exercise everything around the video.

describe('ViewerPage', () => {
  it('says the session has ended when the service no longer knows it, and offers nothing that needs it', async () => {
    server.use(
      http.get(api('/stream/:id'), () => HttpResponse.json({ detail: 'No such session.' }, { status: 404 })),
    );
    renderRoute(`/sessions/${sessionId}`);
    // Never seen running: the id may be wrong, or long ended. Said once, under "Ended".
    const reason = await screen.findByText(
      'No session has this id: it does not exist, or it has ended.',
      {},
      loading,
    );
    const alert = reason.closest<HTMLElement>('[role="alert"]')!;
    expect(within(alert).getByText('Ended')).toHaveClass('MuiAlertTitle-root');
    expect(alert).toHaveClass('MuiAlert-colorInfo');
    expect(screen.queryByText(/This session has ended/)).not.toBeInTheDocument();
    expect(screen.getByTestId('player-state')).toHaveTextContent('Ended');
    // Nothing named it: the heading falls back to the id beneath it.
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent(/^Session$/);
    expect(screen.getByText(new RegExp(sessionId))).toBeInTheDocument();
    // The log comes with the rest of the page, after the stage: what is missing then is missing for good.
    expect(await screen.findByRole('list', { name: 'Message log' })).toBeInTheDocument();
    for (const name of ['End session', 'Reconnect', 'Disconnect', 'Lock pointer', 'Open stage'])
      expect(screen.queryByRole('button', { name })).not.toBeInTheDocument();
    expect(screen.queryByLabelText('Stage URL')).not.toBeInTheDocument();
  });

  it('names the application, version and profile from the service and the catalog', async () => {
    server.use(
      http.get(api('/stream/:id'), () =>
        HttpResponse.json(
          { ...pending, app: 'usd-viewer', version: '1.2.0', profile: 'small' },
          { status: 202 },
        ),
      ),
      http.get(api('/cfg/apps/:id'), () => HttpResponse.json(apps[0])),
      http.get(api('/cfg/apps/:id/versions/:version/profiles'), () =>
        HttpResponse.json({ count: profiles.length, items: profiles }),
      ),
    );
    renderRoute(`/sessions/${sessionId}`);
    expect(
      await screen.findByRole('heading', { level: 1, name: 'USD Viewer 1.2.0 (Small)' }, loading),
    ).toBeInTheDocument();
  });

  it('names the session by its ids where the catalog does not answer', async () => {
    server.use(
      http.get(api('/stream/:id'), () =>
        HttpResponse.json(
          { ...pending, app: 'gone-app', version: '2.0.0', profile: 'light' },
          { status: 202 },
        ),
      ),
      http.get(api('/cfg/apps/*'), () => HttpResponse.json({ detail: 'Not found.' }, { status: 404 })),
    );
    renderRoute(`/sessions/${sessionId}`);
    expect(
      await screen.findByRole('heading', { level: 1, name: 'gone-app 2.0.0 (light)' }, loading),
    ).toBeInTheDocument();
  });

  it('says what the service is doing while the session is pending, and offers only Cancel', async () => {
    server.use(http.get(api('/stream/:id'), () => HttpResponse.json(pending, { status: 202 })));
    renderRoute(`/sessions/${sessionId}`);
    const status = await screen.findByRole('region', { name: 'Session status' }, loading);
    // "Waiting for a free GPU: 1 session ahead", as a person reads it: a heading, and the place under it.
    expect(
      await within(status).findByRole('heading', { name: 'Waiting for a free GPU' }),
    ).toBeInTheDocument();
    expect(within(status).getByRole('status')).toHaveTextContent('1 session ahead');
    expect(screen.getByTestId('player-state')).toHaveTextContent('Waiting');
    expect(screen.getByRole('button', { name: 'Cancel' })).toBeInTheDocument();
    for (const name of ['End session', 'Disconnect', 'Share a watch-only link'])
      expect(screen.queryByRole('button', { name })).not.toBeInTheDocument();
  });

  it('says the session has ended when the service no longer knows it while it plays', async () => {
    await import('./viewer-page');
    useFakeTime();
    let gone = false;
    server.use(
      http.get(api('/stream/:id'), () =>
        gone
          ? HttpResponse.json({ detail: 'No such session.' }, { status: 404 })
          : HttpResponse.json({ ...ready, app: 'gone-app', version: '2.0.0', profile: 'light' }),
      ),
      http.post(api('/stream/:id/tickets'), () => HttpResponse.json(ticket, { status: 201 })),
      http.get(api('/cfg/apps/*'), () => HttpResponse.json({ detail: 'Not found.' }, { status: 404 })),
    );
    renderRoute(`/sessions/${sessionId}`);
    await answered(() => expect(screen.getByText(/This browser cannot play the stream/)).toBeInTheDocument());
    gone = true;
    // The page learns of it at its next poll, at most the slowest pause of the polling policy later.
    await act(() => vi.advanceTimersByTimeAsync(pollDelay(Infinity)));
    await answered(() => expect(screen.getByText('This session has ended.')).toBeInTheDocument());
    expect(screen.getByTestId('player-state')).toHaveTextContent('Ended');
    // The name of what ran stays.
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('gone-app 2.0.0 (light)');
  });

  it('shows a failure with a retry, and ends the session after confirming', async () => {
    let deleted = '';
    server.use(
      // Once ended, the service no longer knows it: the page must still say who ended it.
      http.get(api('/stream/:id'), () =>
        deleted
          ? HttpResponse.json({ detail: 'No such session.' }, { status: 404 })
          : HttpResponse.json({ ...ready, app: 'usd-viewer', version: '1.2.0', profile: 'small' }),
      ),
      http.get(api('/cfg/apps/:id'), () => HttpResponse.json(apps[0])),
      http.get(api('/cfg/apps/:id/versions'), () =>
        HttpResponse.json({ count: 1, items: [{ version: '1.2.0' }] }),
      ),
      http.get(api('/cfg/apps/:id/versions/:version/profiles'), () =>
        HttpResponse.json({ count: profiles.length, items: profiles }),
      ),
      http.post(api('/stream/:id/tickets'), () => HttpResponse.json(ticket, { status: 201 })),
      http.delete(api('/stream/:id'), ({ params }) => {
        deleted = String(params.id);
        return new HttpResponse(null, { status: 204 });
      }),
    );
    const user = userEvent.setup();
    const { queryClient } = renderRoute(`/sessions/${sessionId}`);
    const status = await screen.findByRole('status', {}, loading);
    expect(await within(status).findByText(/This browser cannot play the stream/)).toBeInTheDocument();
    expect(within(status).getByRole('button', { name: 'Retry' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Show statistics' }));
    expect(screen.getByRole('region', { name: 'Stream statistics' })).toBeInTheDocument();

    await user.click(await screen.findByRole('button', { name: 'End session' }));
    const dialog = await screen.findByRole('dialog', { name: 'End this session?' });
    expect(dialog).toHaveTextContent('USD Viewer 1.2.0 (Small) will be stopped');
    await user.click(within(dialog).getByRole('button', { name: 'End session' }));
    expect(await screen.findByText('You ended this session.')).toBeInTheDocument();
    expect(deleted).toBe(sessionId);
    // The viewer asks again when its connection drops, as it does at an end: the answer (404) changes nothing.
    await queryClient.refetchQueries({ queryKey: ['sessions', 'detail', sessionId] });
    expect(screen.getByText('You ended this session.')).toBeInTheDocument();
    expect(screen.queryByText(/No session has this id/)).not.toBeInTheDocument();
    // (Found once the dialog has closed: until then it hides the page from the accessibility tree.)
    expect(await screen.findByRole('link', { name: 'Launch again' })).toHaveAttribute(
      'href',
      '/launch?app=usd-viewer&version=1.2.0&profile=small',
    );
    const ending = screen.getByText('You ended this session.').closest<HTMLElement>('[role="alert"]')!;
    expect(within(ending).getByText('Ended')).toHaveClass('MuiAlertTitle-root');
    expect(within(ending).getByRole('link', { name: 'Back to Sessions' })).toHaveAttribute(
      'href',
      '/sessions',
    );
    // Nothing over the stage is about a stream any more.
    for (const name of ['Show statistics', 'Hide statistics', 'Fullscreen'])
      expect(screen.queryByRole('button', { name })).not.toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Stream statistics' })).not.toBeInTheDocument();
  });

  it('asks before ending, naming what runs, and is used with the keyboard alone: Escape keeps it', async () => {
    const deletes: string[] = [];
    server.use(
      http.get(api('/stream/:id'), () =>
        HttpResponse.json({ ...ready, app: 'usd-viewer', version: '1.2.0', profile: 'small' }),
      ),
      http.get(api('/cfg/apps/:id'), () => HttpResponse.json(apps[0])),
      http.get(api('/cfg/apps/:id/versions/:version/profiles'), () =>
        HttpResponse.json({ count: profiles.length, items: profiles }),
      ),
      http.get(api('/cfg/apps/:id/versions'), () =>
        HttpResponse.json({ count: 1, items: [{ version: '1.2.0' }] }),
      ),
      http.post(api('/stream/:id/tickets'), () => HttpResponse.json(ticket, { status: 201 })),
      http.delete(api('/stream/:id'), ({ params }) => {
        deletes.push(String(params.id));
        return new HttpResponse(null, { status: 204 });
      }),
    );
    const user = userEvent.setup();
    renderRoute(`/sessions/${sessionId}`);
    await screen.findByRole('heading', { level: 1, name: 'USD Viewer 1.2.0 (Small)' }, loading);
    const endButton = await screen.findByRole('button', { name: 'End session' });
    // One press is no end: it asks first, and Escape keeps the session.
    endButton.focus();
    await user.keyboard('{Enter}');
    const dialog = await screen.findByRole('dialog', { name: 'End this session?' });
    expect(dialog).toHaveTextContent('USD Viewer 1.2.0 (Small) will be stopped');
    expect(deletes).toEqual([]);
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(deletes).toEqual([]);
    // The first Tab in the dialog reaches the way out, the next the end itself.
    endButton.focus();
    await user.keyboard(' ');
    await screen.findByRole('dialog', { name: 'End this session?' });
    await user.tab();
    expect(screen.getByRole('button', { name: 'Keep it' })).toHaveFocus();
    await user.tab();
    const confirm = within(screen.getByRole('dialog')).getByRole('button', { name: 'End session' });
    expect(confirm).toHaveFocus();
    await user.keyboard('{Enter}');
    expect(await screen.findByText('You ended this session.')).toBeInTheDocument();
    expect(deletes).toEqual([sessionId]);
  });

  it('plays a shared watch link without asking the service anything', async () => {
    let asked = 0;
    server.use(
      http.all(
        '*/api/*',
        () => (asked++, HttpResponse.json({ detail: 'Not authenticated' }, { status: 403 })),
      ),
    );
    const fragment = new URLSearchParams({
      session: sessionId,
      ticket: 'w',
      routes: JSON.stringify(ready.routes),
    });
    renderRoute(`/watch#${fragment}`);
    expect(await screen.findByRole('heading', { name: 'Watching session' }, loading)).toBeInTheDocument();
    expect(await screen.findByText(/This browser cannot play the stream/)).toBeInTheDocument();
    expect(await screen.findByRole('list', { name: 'Message log' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'End session' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Share a watch-only link' })).not.toBeInTheDocument();
    expect(asked).toBe(0);
  });

  it("names a shared session by the name its link carries, the one its sharer's page showed", async () => {
    const fragment = new URLSearchParams({
      session: sessionId,
      ticket: 'w',
      routes: JSON.stringify(ready.routes),
      title: 'USD Viewer 1.2.0 (Small)',
    });
    renderRoute(`/watch#${fragment}`);
    expect(
      await screen.findByRole('heading', { name: 'Watching USD Viewer 1.2.0 (Small)' }, loading),
    ).toBeInTheDocument();
  });

  it('says so when a watch link has lost its fragment', async () => {
    renderRoute('/watch');
    expect(await screen.findByText(/This watch link is incomplete/, {}, loading)).toBeInTheDocument();
  });

  it('counts down the end of its lifetime and offers Extend to the owner; never to a watcher', async () => {
    const ending = {
      ...ready,
      ends_at: new Date(Date.now() + 3 * 60_000).toISOString(),
      latest_end_at: new Date(Date.now() + 60 * 60_000).toISOString(),
    };
    server.use(
      http.get(api('/stream/:id'), () => HttpResponse.json(ending)),
      http.post(api('/stream/:id/tickets'), async ({ request }) => {
        const { scope } = (await request.json()) as { scope: string };
        return HttpResponse.json({ ...ticket, scope }, { status: 201 });
      }),
    );
    const { unmount } = renderRoute(`/sessions/${sessionId}`);
    expect(await screen.findByRole('timer', {}, loading)).toHaveTextContent(/^Ends in [23]:\d\d$/);
    expect(screen.getByRole('button', { name: 'Extend' })).toBeInTheDocument();
    unmount();
    renderRoute(`/sessions/${sessionId}?mode=watch`);
    expect(await screen.findByRole('timer', {}, loading)).toHaveTextContent(/^Ends in [23]:\d\d$/);
    expect(screen.queryByRole('button', { name: 'Extend' })).not.toBeInTheDocument();
  });

  it('is watch-only with ?mode=watch: no end button, no pointer lock, no link to share', async () => {
    server.use(
      http.get(api('/stream/:id'), () => HttpResponse.json(ready)),
      http.post(api('/stream/:id/tickets'), () =>
        HttpResponse.json({ ...ticket, scope: 'watch' }, { status: 201 }),
      ),
    );
    renderRoute(`/sessions/${sessionId}?mode=watch`);
    expect(await screen.findByRole('heading', { name: 'Watching session' }, loading)).toBeInTheDocument();
    expect(await screen.findByRole('list', { name: 'Message log' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'End session' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Lock pointer' })).not.toBeInTheDocument();
    expect(screen.queryByLabelText('Watch-only link')).not.toBeInTheDocument();
  });

  it('makes a watch-only link holding a watch ticket, and toggles the statistics with Ctrl+Shift+S', async () => {
    const scopes: unknown[] = [];
    server.use(
      http.get(api('/stream/:id'), () => HttpResponse.json(ready)),
      http.post(api('/stream/:id/tickets'), async ({ request }) => {
        const { scope } = (await request.json()) as { scope: string };
        scopes.push(scope);
        return HttpResponse.json({ ...ticket, scope, ticket: `${scope}-ticket` }, { status: 201 });
      }),
    );
    const user = userEvent.setup();
    renderRoute(`/sessions/${sessionId}`);
    await user.click(await screen.findByRole('button', { name: 'Share a watch-only link' }, loading));
    const link = (await screen.findByLabelText('Watch-only link')) as HTMLInputElement;
    const url = new URL(link.value);
    expect(url.pathname).toBe('/watch');
    expect(url.search).toBe('');
    const fragment = new URLSearchParams(url.hash.slice(1));
    expect(fragment.get('session')).toBe(sessionId);
    expect(fragment.get('ticket')).toBe('watch-ticket');
    expect(JSON.parse(fragment.get('routes') ?? 'null')).toEqual(ready.routes);
    expect(scopes).toContain('watch');
    expect(screen.queryByRole('region', { name: 'Stream statistics' })).not.toBeInTheDocument();
    await user.keyboard('{Control>}{Shift>}S{/Shift}{/Control}');
    expect(screen.getByRole('region', { name: 'Stream statistics' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Hide statistics' }));
    await waitFor(() =>
      expect(screen.queryByRole('region', { name: 'Stream statistics' })).not.toBeInTheDocument(),
    );
  });

  it('points to the connection check when the stream has not started 10 s after connecting began', async () => {
    class Stuck {
      addTransceiver() {}
      createDataChannel() {
        return { addEventListener() {}, close() {} };
      }
      addEventListener() {}
      createOffer() {
        return new Promise(() => undefined);
      }
      close() {}
    }
    vi.stubGlobal('RTCPeerConnection', Stuck);
    // Time runs on its own (the page loads lazily) and is moved on by hand past the 10 s.
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      server.use(
        http.get(api('/stream/:id'), () => HttpResponse.json(ready)),
        http.post(api('/stream/:id/tickets'), () => HttpResponse.json(ticket, { status: 201 })),
      );
      renderRoute(`/sessions/${sessionId}`);
      expect(await screen.findByLabelText('Session stream', {}, loading)).toBeInTheDocument();
      expect(screen.getByTestId('player-state')).toHaveTextContent('Connecting');
      expect(screen.queryByRole('link', { name: 'Check the connection' })).not.toBeInTheDocument();
      await act(() => vi.advanceTimersByTimeAsync(10_000));
      const status = screen.getByRole('status');
      expect(within(status).getByRole('link', { name: 'Check the connection' })).toHaveAttribute(
        'href',
        '/check',
      );
      expect(status).toHaveTextContent('Connecting to the session…');
      expect(status).toHaveTextContent(
        'The stream has not started. The connection check finds what is in the way.',
      );
      expect(screen.getByTestId('player-state')).toHaveTextContent('Connecting');
    } finally {
      vi.useRealTimers();
      vi.unstubAllGlobals();
    }
  });

  it('shows the panels below the stage after the stage, at the latest a moment later while it connects', async () => {
    // A peer connection whose offer never comes: the player stays connecting.
    class Stuck {
      addTransceiver() {}
      createDataChannel() {
        return { addEventListener() {}, close() {} };
      }
      addEventListener() {}
      createOffer() {
        return new Promise(() => undefined);
      }
      close() {}
    }
    vi.stubGlobal('RTCPeerConnection', Stuck);
    await import('./viewer-page');
    useFakeTime();
    try {
      server.use(
        http.get(api('/stream/:id'), () => HttpResponse.json(ready)),
        http.post(api('/stream/:id/tickets'), () => HttpResponse.json(ticket, { status: 201 })),
      );
      renderRoute(`/sessions/${sessionId}`);
      await answered(() => expect(screen.getByLabelText('Session stream')).toBeInTheDocument());
      expect(screen.getByTestId('player-state')).toHaveTextContent('Connecting');
      expect(screen.getByRole('button', { name: 'End session' })).toBeInTheDocument();
      expect(screen.queryByRole('list', { name: 'Message log' })).not.toBeInTheDocument();
      // Half a second later they come, though it still connects, and not a moment before.
      await act(() => vi.advanceTimersByTimeAsync(499));
      expect(screen.queryByRole('list', { name: 'Message log' })).not.toBeInTheDocument();
      await act(() => vi.advanceTimersByTimeAsync(1));
      expect(screen.getByRole('list', { name: 'Message log' })).toBeInTheDocument();
      expect(screen.getByTestId('player-state')).toHaveTextContent('Connecting');
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
