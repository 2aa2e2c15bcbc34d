import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { pollDelay, WAITING_POLL_MS } from '../../../lib/queries/session-queries';
import { reportReachable } from '../../../lib/service-status';
import { getStartedSessions, rememberSession } from '../../../lib/session-history';
import { pending, ready, sessionId } from '../../../test/fixtures';
import { renderRoute } from '../../../test/render';
import { answered, useFakeTime } from '../../../test/fake-time';
import { api, http, HttpResponse, server } from '../../../test/server';

describe('a waiting session on its page', { timeout: 30_000 }, () => {
  afterEach(() => reportReachable());
  // The page's code is loaded on real time once, so that tests on fake time find it loaded.
  beforeAll(() => import('./viewer-page'), 30_000);

  it('keeps polling through a lost service and hands the session to the player once it is ready', async () => {
    useFakeTime();
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
    await answered(() =>
      expect(screen.getByRole('heading', { name: 'Waiting for a free GPU' })).toBeInTheDocument(),
    );
    expect(screen.getByTestId('player-state')).toHaveTextContent('Waiting');
    expect(polls).toBe(1);
    // The next poll comes when the one polling policy says, not a moment before.
    const first = Math.min(pollDelay(1), WAITING_POLL_MS);
    await act(() => vi.advanceTimersByTimeAsync(first - 1));
    expect(polls).toBe(1);
    await act(() => vi.advanceTimersByTimeAsync(1));
    await answered(() => expect(polls).toBe(2));
    // The service is gone: the page asks again at the backed-off pace and says it lost contact.
    await act(() => vi.advanceTimersByTimeAsync(pollDelay(2)));
    await answered(() =>
      expect(screen.getByText('Lost contact with the service, still trying…')).toBeInTheDocument(),
    );
    expect(polls).toBe(3);
    // What the session said last stays shown, and no error replaces the pending view.
    expect(screen.getByText('1 session ahead')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Waiting for a free GPU' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Retry' })).not.toBeInTheDocument();
    // The banner's probe finds the service back and the page asks at once; the sixth answer, ready, comes
    // 4.25 s after the page opened.
    await act(() => vi.advanceTimersByTimeAsync(4_250 - first - pollDelay(2)));
    await answered(() => expect(polls).toBe(answers.length));
    // Ready: the player takes over (jsdom has no WebRTC, so it cannot play, which is enough here).
    await answered(() => expect(screen.getByText(/This browser cannot play the stream/)).toBeInTheDocument());
    expect(screen.queryByRole('heading', { name: 'Waiting for a free GPU' })).not.toBeInTheDocument();
    // A session that is ready is polled at the slower pace: no seventh poll comes in the next 3.5 s.
    await act(() => vi.advanceTimersByTimeAsync(3_500));
    expect(polls).toBe(answers.length);
  });

  it('says a session that failed while waiting (410) failed, in red, with its reason once', async () => {
    useFakeTime();
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
    await answered(() =>
      expect(screen.getByRole('heading', { name: 'Waiting for a free GPU' })).toBeInTheDocument(),
    );
    // The second poll, at the policy's first pause, learns of the failure.
    await act(() => vi.advanceTimersByTimeAsync(Math.min(pollDelay(1), WAITING_POLL_MS)));
    // Said once, without "This session has ended" or "The session failed" before it.
    const reason = await answered(() =>
      screen.getByText('Broken Program 0.0.1 exited with code 1 before it was ready; it said: disk full'),
    );
    expect(polls).toBe(2);
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
    useFakeTime();
    // The route's prefetch asks once, and the page once more (a failed prefetch is the page's to explain).
    let polls = 0;
    server.use(
      http.get(api('/stream/:id'), () => {
        polls += 1;
        return HttpResponse.json({ detail: 'Not authenticated' }, { status: 403 });
      }),
    );
    renderRoute(`/sessions/${sessionId}`);
    // The refused prefetch, then the page's own request, each answered in an I/O turn.
    await answered(() =>
      expect(screen.getByText(/You do not have permission to do this/)).toBeInTheDocument(),
    );
    expect(screen.getByTestId('player-state')).toHaveTextContent('Failed');
    expect(screen.queryByRole('button', { name: 'Cancel' })).not.toBeInTheDocument();
    expect(polls).toBe(2);
    // Past the next polls there would be, none comes.
    await act(() => vi.advanceTimersByTimeAsync(10_000));
    expect(polls).toBe(2);
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
    await userEvent.click(await screen.findByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(deleted).toBe(sessionId));
    await waitFor(() => expect(router.state.location.pathname).toBe('/launch'));
    expect(router.state.location.search).toBe('?app=usd-viewer&profile=default');
    expect(getStartedSessions()).toEqual([]);
  });

  it('offers no Cancel to a watch-only viewer', async () => {
    server.use(http.get(api('/stream/:id'), () => HttpResponse.json(pending, { status: 202 })));
    renderRoute(`/sessions/${sessionId}?mode=watch`);
    expect(await screen.findByRole('heading', { name: 'Waiting for a free GPU' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Cancel' })).not.toBeInTheDocument();
  });
});
