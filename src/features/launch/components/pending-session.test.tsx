import { screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { reportReachable } from '../../../lib/service-status';
import { apps, pending, ready, sessionId } from '../../../test/fixtures';
import { renderRoute } from '../../../test/render';
import { api, http, HttpResponse, server } from '../../../test/server';

describe('pending session', { timeout: 30_000 }, () => {
  afterEach(() => reportReachable());

  it('keeps polling through a lost service and opens the viewer once the session is ready', async () => {
    // pending, then the service is gone (no answer, then a proxy 502), then it is back and the session is ready.
    const answers = ['pending', 'down', 'down', 'proxy', 'pending', 'ready'] as const;
    let polls = 0;
    server.use(
      http.get(api('/cfg/apps'), () => HttpResponse.json({ count: apps.length, items: apps })),
      http.get(api('/stream'), () => HttpResponse.json({ count: 0, items: [] })),
      http.get(api('/stream/:id'), () => {
        const answer = answers[Math.min(polls, answers.length - 1)];
        polls += 1;
        if (answer === 'down') return HttpResponse.error();
        if (answer === 'proxy') return new HttpResponse('Bad gateway', { status: 502 });
        return answer === 'ready' ? HttpResponse.json(ready) : HttpResponse.json(pending, { status: 202 });
      }),
    );
    const { router } = renderRoute(`/launch?session=${sessionId}`);
    expect(await screen.findByText('Waiting for a free GPU: 1 session ahead')).toBeInTheDocument();
    expect(await screen.findByText('Lost contact with the service, still trying…')).toBeInTheDocument();
    // What the session said last stays shown, and no error replaces the pending view.
    expect(screen.getByText('Phase: pending')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Back to the form' })).not.toBeInTheDocument();
    await waitFor(() => expect(router.state.location.pathname).toBe(`/sessions/${sessionId}`), {
      timeout: 20_000,
    });
    expect(polls).toBe(answers.length);
  });

  it('shows an answer that ends the session (404) as an error, not as lost contact', async () => {
    let polls = 0;
    server.use(
      http.get(api('/stream/:id'), () => {
        polls += 1;
        return polls === 1
          ? HttpResponse.json(pending, { status: 202 })
          : HttpResponse.json({ detail: 'Session not found.' }, { status: 404 });
      }),
    );
    renderRoute(`/launch?session=${sessionId}`);
    // The page says it where the session was shown (a notice for the failed refresh may say it too).
    expect(await screen.findByText(/^This session no longer exists/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Back to the form' })).toBeInTheDocument();
    expect(screen.queryByText('Lost contact with the service, still trying…')).not.toBeInTheDocument();
  });
});
