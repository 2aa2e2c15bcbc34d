/**
 * A shared watch link's page after the owner stops sharing, or the session ends: it says so once, for good, and
 * stops trying, instead of counting down to attempt after attempt.
 */
import { act, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ready, sessionId } from '../../../test/fixtures';
import { renderRoute } from '../../../test/render';
import { api, http, HttpResponse, server } from '../../../test/server';
import { playing, withFakeStream } from '../testing/fake-stream';

withFakeStream('watch');

const answer =
  'v=0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=candidate:1 1 udp 2130706431 127.0.0.1 47002 typ host\r\n';
const SHARED_NOTE = /You are watching through a shared link/;

/** The application plays the first offer; `after` answers the next ones. Returns the offers it was sent. */
function application(after: () => Response) {
  const offers: string[] = [];
  server.use(
    http.post('http://127.0.0.1:47001/whep', ({ request }) => {
      offers.push(request.headers.get('authorization') ?? '');
      return offers.length === 1
        ? HttpResponse.text(answer, { status: 201, headers: { Location: '/whep/r1' } })
        : after();
    }),
  );
  return offers;
}

/** Opens the link, plays, and the application drops this watcher (it closes its side). */
async function watchThenDropped() {
  const fragment = new URLSearchParams({
    session: sessionId,
    ticket: 'link-ticket',
    routes: JSON.stringify(ready.routes),
    title: 'USD Viewer 1.2.0 (Small)',
  });
  renderRoute(`/watch#${fragment}`);
  const { peer } = await playing();
  expect(screen.getByText(SHARED_NOTE)).toBeInTheDocument();
  peer.channel('messages').close();
}

describe('a shared watch link', () => {
  afterEach(() => vi.useRealTimers());

  it('stops for good when the owner stops sharing: it says so, and tries no more', async () => {
    // Time runs on its own (the page loads lazily), and is moved on by hand past the first reconnect's pause.
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const offers = application(() => new HttpResponse('', { status: 401 }));
    await watchThenDropped();
    await act(() => vi.advanceTimersByTimeAsync(30_000));
    const reason = await screen.findByText(
      'The owner stopped sharing this session: this link no longer plays. Ask them for a new link to watch again.',
    );
    const alert = reason.closest<HTMLElement>('[role="alert"]')!;
    expect(within(alert).getByText('Sharing stopped')).toBeInTheDocument();
    expect(screen.getByTestId('player-state')).toHaveTextContent('Sharing stopped');
    expect(offers).toEqual(['Bearer link-ticket', 'Bearer link-ticket']);
    // Nothing to reconnect to, no countdown, and the note about watching through a link is gone with it.
    expect(screen.queryByText(/Reconnecting in/)).not.toBeInTheDocument();
    for (const name of ['Reconnect', 'Disconnect', 'Retry now', 'Retry'])
      expect(screen.queryByRole('button', { name })).not.toBeInTheDocument();
    expect(screen.queryByText(SHARED_NOTE)).not.toBeInTheDocument();
    await act(() => vi.advanceTimersByTimeAsync(120_000));
    expect(offers).toHaveLength(2);
    expect(screen.getByTestId('player-state')).toHaveTextContent('Sharing stopped');
  });

  it('says the session has ended when it has: the door, asked when the application is gone, says so', async () => {
    // Time runs on its own (the page loads lazily), and is moved on by hand past the first reconnect's pause.
    vi.useFakeTimers({ shouldAdvanceTime: true });
    application(() => HttpResponse.error());
    const door: string[] = [];
    server.use(
      http.post(api('/stream/:id/whep'), ({ params }) => {
        door.push(String(params.id));
        return HttpResponse.text('No session has this id; it may have ended.', { status: 404 });
      }),
    );
    await watchThenDropped();
    await act(() => vi.advanceTimersByTimeAsync(30_000));
    const reason = await screen.findByText('This session has ended.');
    const alert = reason.closest<HTMLElement>('[role="alert"]')!;
    expect(within(alert).getByText('Ended')).toBeInTheDocument();
    expect(screen.getByTestId('player-state')).toHaveTextContent('Ended');
    expect(door).toEqual([sessionId]);
    // Someone watching through a link may have no sessions here: no way there is offered.
    expect(within(alert).queryByRole('link')).not.toBeInTheDocument();
    expect(screen.queryByText(SHARED_NOTE)).not.toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Watching USD Viewer 1.2.0 (Small)');
  }, 15_000);
});
