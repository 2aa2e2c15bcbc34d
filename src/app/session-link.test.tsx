import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { sessionId } from '../test/fixtures';
import { renderRoute } from '../test/render';
import { api, http, HttpResponse, server } from '../test/server';

// The viewer is lazy-loaded; its first import in a test file can take seconds on a busy machine.
const loading = { timeout: 10_000 };

/** Answers GET /stream/{id} with 404 and counts the calls. */
function unknownSessions(): { calls: () => number } {
  let calls = 0;
  server.use(
    http.get(api('/stream/:id'), () => {
      calls += 1;
      return HttpResponse.json({ detail: 'No session has this id; it may have ended.' }, { status: 404 });
    }),
  );
  return { calls: () => calls };
}

describe('session links', { timeout: 30_000 }, () => {
  it('says in words that a malformed link is not a session link, and asks the service nothing', async () => {
    const service = unknownSessions();
    renderRoute('/sessions/not-a-uuid');
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'This is not a session link: “not-a-uuid” is not a session id.',
    );
    expect(screen.getByRole('link', { name: 'Go to Sessions' })).toHaveAttribute('href', '/sessions');
    expect(screen.queryByTestId('player-state')).not.toBeInTheDocument();
    expect(service.calls()).toBe(0);
  });

  it('opens an upper-cased session link at its lower-case address', async () => {
    unknownSessions();
    const { router } = renderRoute(`/sessions/${sessionId.toUpperCase()}?mode=watch`);
    expect(await screen.findByTestId('player-state', {}, loading)).toBeInTheDocument();
    expect(router.state.location.pathname).toBe(`/sessions/${sessionId}`);
    expect(router.state.location.search).toBe('?mode=watch');
  });

  it('says once that an unknown session does not exist or has ended', async () => {
    const service = unknownSessions();
    renderRoute(`/sessions/${sessionId}`);
    expect(
      await screen.findByText(/No session has this id: it does not exist, or it has ended\./, {}, loading),
    ).toBeInTheDocument();
    expect(screen.getByTestId('player-state')).toHaveTextContent('Ended');
    expect(screen.queryByText(/Connection lost/)).not.toBeInTheDocument();
    expect(service.calls()).toBe(1);
  });
});
