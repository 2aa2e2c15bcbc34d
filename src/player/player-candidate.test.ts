/**
 * The offer carries the browser's first ICE candidate (first-candidate.ts): an application with a full ICE agent
 * then checks the viewer's address at once instead of a pacing interval after the viewer's own check.
 */
import { expect, it, vi } from 'vitest';
import { FIRST_CANDIDATE_WAIT_MS } from './connection/first-candidate';
import { FakePeerConnection } from './testing/fake-peer-connection';
import { play, posts, setup, withPlayerHarness } from './testing/player-harness';

withPlayerHarness();

const offerOf = (h: ReturnType<typeof setup>) => String(posts(h)[0]![1].body);

it("waits for the browser's first candidate, and sends it in the offer", async () => {
  FakePeerConnection.gatherMs = 3;
  const h = setup();
  h.player.connect();
  await vi.advanceTimersByTimeAsync(2);
  expect(posts(h)).toHaveLength(0);
  await vi.advanceTimersByTimeAsync(1);
  expect(posts(h)).toHaveLength(1);
  expect(offerOf(h)).toMatch(/\r\na=candidate:1 1 udp \d+ [0-9a-f-]+\.local 54321 typ host\r\n/);
  await play(h);
  expect(h.player.state).toEqual({ kind: 'playing' });
});

it('sends its offer without a candidate once the wait is over, for a browser that gathers none', async () => {
  FakePeerConnection.gatherMs = Infinity;
  const h = setup();
  h.player.connect();
  await vi.advanceTimersByTimeAsync(FIRST_CANDIDATE_WAIT_MS - 1);
  expect(posts(h)).toHaveLength(0);
  await vi.advanceTimersByTimeAsync(1);
  expect(posts(h)).toHaveLength(1);
  expect(offerOf(h)).not.toContain('a=candidate:');
  await play(h);
  expect(h.player.state).toEqual({ kind: 'playing' });
});
