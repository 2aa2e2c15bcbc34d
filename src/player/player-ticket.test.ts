/** The ticket and the offer are made at the same time: neither waits for the other before the POST. */
import { expect, it, vi } from 'vitest';
import { lastPeer, play, posts, setup, withPlayerHarness } from './testing/player-harness';

withPlayerHarness();

it('makes its offer while the ticket is on its way, and posts it with the ticket once it comes', async () => {
  let give: (ticket: string) => void = () => {};
  const h = setup({ ticket: () => new Promise<string>((resolve) => (give = resolve)) });
  h.player.connect();
  await vi.advanceTimersByTimeAsync(0);
  expect(lastPeer().localDescription?.type).toBe('offer');
  expect(posts(h)).toHaveLength(0);
  give('late-ticket');
  await play(h);
  expect(posts(h)).toHaveLength(1);
  expect(posts(h)[0]![1].headers).toMatchObject({ Authorization: 'Bearer late-ticket' });
  expect(h.player.state).toEqual({ kind: 'playing' });
});

it('makes no POST when the ticket fails, and closes the peer it had made', async () => {
  const h = setup({ ticket: () => Promise.reject(new Error('offline')) });
  h.player.connect();
  await vi.advanceTimersByTimeAsync(0);
  expect(h.states.at(-1)).toMatchObject({ kind: 'reconnecting', reason: expect.stringMatching(/offline/) });
  expect(posts(h)).toHaveLength(0);
  expect(lastPeer().closed).toBe(true);
});

it('posts a new control ticket after a lost connection, never the one it already used', async () => {
  const h = setup();
  h.ticket.mockResolvedValueOnce('first-ticket').mockResolvedValueOnce('second-ticket');
  h.player.connect();
  await play(h);
  lastPeer().setConnectionState('failed');
  await vi.advanceTimersByTimeAsync(1000);
  await play(h);
  expect(h.player.state).toEqual({ kind: 'playing' });
  expect(posts(h).map(([, init]) => (init?.headers as Record<string, string>).Authorization)).toEqual([
    'Bearer first-ticket',
    'Bearer second-ticket',
  ]);
});

it('says that a watch link may have been stopped when the application refuses its ticket', async () => {
  const h = setup({ mode: 'watch', ticket: async () => 'shared-watch-ticket' });
  h.fetch.mockImplementation(async () => new Response('', { status: 401 }));
  h.player.connect();
  await vi.advanceTimersByTimeAsync(1000 + 2000 + 4000);
  expect(h.states.at(-1)).toMatchObject({
    kind: 'failed',
    reason: expect.stringMatching(/expired, or the owner stopped sharing the session\. Ask for a new link\./),
  });
});
