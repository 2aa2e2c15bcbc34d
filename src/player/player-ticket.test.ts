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
