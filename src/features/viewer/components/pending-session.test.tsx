import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { reportReachable } from '../../../lib/service-status';
import { getStartedSessions, rememberSession } from '../../../lib/session-history';
import { pending, ready, sessionId } from '../../../test/fixtures';
import { renderRoute } from '../../../test/render';
import { api, http, HttpResponse, server } from '../../../test/server';

// The viewer is lazy-loaded; its first import in a test file can take seconds on a busy machine.
const loading = { timeout: 10_000 };

describe('a waiting session on its page', { timeout: 30_000 }, () => {
  afterEach(() => reportReachable());

  it('keeps polling through a lost service and hands the session to the player once it is ready', async () => {
    // pending, then the service is gone (no answer, then a proxy 502), then it is back and the session is ready.
    const answers = ['pending', 'down', 'down', 'proxy', 'pending', 'ready'] as const;
    let polls = 0;
    server.use(
      http.get(api('/stream/:id'), () => {
        const answer = answers[Math.min(polls, answers.length - 1)];
        polls += 1;
        if (answer === 'down') return HttpResponse.error();
        if (answer === 'proxy') return new HttpResponse('Bad gateway', { status: 502 });
        return answer === 'ready' ? HttpResponse.json(ready) : HttpResponse.json(pending, { status: 202 });
      }),
      http.post(api('/stream/:id/tickets'), () =>
        HttpResponse.json({ detail: 'Not Found' }, { status: 404 }),
      ),
      // The banner's probe of the service while contact is lost: gone with it, back with it.
      http.get(api('/cfg/apps'), () =>
        answers[Math.min(polls, answers.length - 1)] === 'down'
          ? HttpResponse.error()
          : HttpResponse.json({ count: 0, items: [] }),
      ),
    );
    renderRoute(`/sessions/${sessionId}`);
    expect(
      await screen.findByRole('heading', { name: 'Waiting for a free GPU' }, loading),
    ).toBeInTheDocument();
    expect(screen.getByTestId('player-state')).toHaveTextContent('Waiting');
    expect(await screen.findByText('Lost contact with the service, still trying…')).toBeInTheDocument();
    // What the session said last stays shown, and no error replaces the pending view.
    expect(screen.getByText('1 session ahead')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Waiting for a free GPU' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Retry' })).not.toBeInTheDocument();
    // Ready: the player takes over (jsdom has no WebRTC, so it cannot play, which is enough here).
    expect(
      await screen.findByText(/This browser cannot play the stream/, {}, { timeout: 20_000 }),
    ).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Waiting for a free GPU' })).not.toBeInTheDocument();
    expect(polls).toBe(answers.length);
  });

  it('says a session that failed while waiting (410) failed, in red, with its reason once', async () => {
    let polls = 0;
    server.use(
      http.get(api('/stream/:id'), () => {
        polls += 1;
        return polls === 1
          ? HttpResponse.json(pending, { status: 202 })
          : HttpResponse.json(
              {
                detail:
                  'The session failed: Broken Program 0.0.1 exited with code 1 before it was ready; it said: disk full',
              },
              { status: 410 },
            );
      }),
    );
    renderRoute(`/sessions/${sessionId}`);
    expect(
      await screen.findByRole('heading', { name: 'Waiting for a free GPU' }, loading),
    ).toBeInTheDocument();
    // Said once, without "This session has ended" or "The session failed" before it.
    const reason = await screen.findByText(
      'Broken Program 0.0.1 exited with code 1 before it was ready; it said: disk full',
    );
    const alert = reason.closest<HTMLElement>('[role="alert"]')!;
    expect(alert).toHaveClass('MuiAlert-colorError');
    expect(within(alert).getByTestId('ErrorOutlineIcon')).toBeInTheDocument();
    expect(within(alert).getByText('Failed')).toHaveClass('MuiAlertTitle-root');
    expect(alert).not.toHaveTextContent(/ended|The session failed/i);
    // What to do next.
    expect(within(alert).getByRole('link', { name: 'Launch again' })).toHaveAttribute(
      'href',
      expect.stringMatching(/^\/launch/),
    );
    expect(within(alert).getByRole('link', { name: 'Back to Sessions' })).toHaveAttribute(
      'href',
      '/sessions',
    );
    expect(screen.getByTestId('player-state')).toHaveTextContent('Failed');
    expect(screen.queryByText('Lost contact with the service, still trying…')).not.toBeInTheDocument();
  });

  it('explains a refusal and stops asking', async () => {
    // Time runs on its own (the page loads lazily) and is moved on by hand past the next polls there would be.
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      // The route's prefetch asks once, and the page once more (a failed prefetch is the page's to explain).
      let polls = 0;
      server.use(
        http.get(api('/stream/:id'), () => {
          polls += 1;
          return HttpResponse.json({ detail: 'Not authenticated' }, { status: 403 });
        }),
      );
      renderRoute(`/sessions/${sessionId}`);
      expect(
        await screen.findByText(/You do not have permission to do this/, {}, loading),
      ).toBeInTheDocument();
      expect(screen.getByTestId('player-state')).toHaveTextContent('Failed');
      expect(screen.queryByRole('button', { name: 'Cancel' })).not.toBeInTheDocument();
      const asked = polls;
      await act(() => vi.advanceTimersByTimeAsync(10_000));
      expect(polls).toBe(asked);
    } finally {
      vi.useRealTimers();
    }
  });

  it('Cancel ends the session with DELETE, forgets it and goes back to the launch form', async () => {
    let deleted = '';
    server.use(
      http.get(api('/stream/:id'), () => HttpResponse.json(pending, { status: 202 })),
      http.delete(api('/stream/:id'), ({ params }) => {
        deleted = String(params.id);
        return new HttpResponse(null, { status: 204 });
      }),
      http.get(api('/cfg/apps'), () => HttpResponse.json({ count: 0, items: [] })),
      http.get(api('/cfg/apps/*'), () => HttpResponse.json({ detail: 'Not found.' }, { status: 404 })),
    );
    rememberSession({ id: sessionId, app: 'usd-viewer', version: '1.2.0', profile: 'default', startedAt: 1 });
    const { router } = renderRoute('/launch?app=usd-viewer&profile=default');
    await router.navigate(`/sessions/${sessionId}`);
    await userEvent.click(await screen.findByRole('button', { name: 'Cancel' }, loading));
    await waitFor(() => expect(deleted).toBe(sessionId));
    await waitFor(() => expect(router.state.location.pathname).toBe('/launch'));
    expect(router.state.location.search).toBe('?app=usd-viewer&profile=default');
    expect(getStartedSessions()).toEqual([]);
  });

  it('offers no Cancel to a watch-only viewer', async () => {
    server.use(http.get(api('/stream/:id'), () => HttpResponse.json(pending, { status: 202 })));
    renderRoute(`/sessions/${sessionId}?mode=watch`);
    expect(
      await screen.findByRole('heading', { name: 'Waiting for a free GPU' }, loading),
    ).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Cancel' })).not.toBeInTheDocument();
  });
});
