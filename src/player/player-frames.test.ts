/**
 * The state follows the frames: a picture that stopped moving is `stalled`, not `playing`, even while the
 * connection still looks alive (an application that dropped this viewer, its close lost on the way).
 */
import { expect, it, vi } from 'vitest';
import { lastPeer, play, setup, withPlayerHarness, type Harness } from './testing/player-harness';

withPlayerHarness();

/** Gives the harness's video element frame callbacks, as browsers have; `present()` shows one frame. */
function withFrameCallbacks(h: Harness) {
  let pending: VideoFrameRequestCallback[] = [];
  h.video.requestVideoFrameCallback = (callback) => pending.push(callback);
  h.video.cancelVideoFrameCallback = () => undefined;
  return () => {
    const due = pending;
    pending = [];
    for (const callback of due) callback(0, {} as VideoFrameCallbackMetadata);
  };
}

it('says the picture stopped 1.5 s after its last frame, and plays again at the next', async () => {
  const h = setup();
  const present = withFrameCallbacks(h);
  h.player.connect();
  await play(h);
  // 30 frames a second for 3 s: playing throughout.
  for (let i = 0; i < 90; i++) {
    present();
    await vi.advanceTimersByTimeAsync(33);
  }
  expect(h.player.state).toEqual({ kind: 'playing' });
  const last = Date.now();
  present();
  await vi.advanceTimersByTimeAsync(1500);
  expect(h.player.state).toEqual({ kind: 'playing' });
  await vi.advanceTimersByTimeAsync(250);
  expect(h.player.state).toEqual({ kind: 'stalled', since: last });
  present();
  expect(h.player.state).toEqual({ kind: 'playing' });
});

it('takes a quiet picture sent once a second (the display host’s idle refresh) for a playing one', async () => {
  const h = setup();
  const present = withFrameCallbacks(h);
  h.player.connect();
  await play(h);
  for (let i = 0; i < 10; i++) {
    present();
    await vi.advanceTimersByTimeAsync(1100);
  }
  expect(h.states.map((s) => s.kind)).not.toContain('stalled');
});

it('counts the frames decoded where the element gives no frame callbacks', async () => {
  const h = setup({ statsIntervalMs: 1000 });
  h.player.connect();
  await play(h);
  const decoded = (frames: number) =>
    lastPeer().stats.set('in', { type: 'inbound-rtp', kind: 'video', framesDecoded: frames });
  for (let i = 1; i <= 5; i++) {
    decoded(i * 30);
    await vi.advanceTimersByTimeAsync(1000);
  }
  expect(h.player.state).toEqual({ kind: 'playing' });
  // The count stands still: a sample's frame may be a whole interval old, so it takes 1.5 s more than that.
  await vi.advanceTimersByTimeAsync(2250);
  expect(h.player.state).toEqual({ kind: 'playing' });
  await vi.advanceTimersByTimeAsync(1000);
  expect(h.player.state.kind).toBe('stalled');
  decoded(200);
  await vi.advanceTimersByTimeAsync(1000);
  expect(h.player.state).toEqual({ kind: 'playing' });
});

it('judges nothing where no frame is ever reported, and nothing while the page is hidden', async () => {
  const h = setup();
  h.player.connect();
  await play(h);
  await vi.advanceTimersByTimeAsync(60_000);
  expect(h.player.state).toEqual({ kind: 'playing' });

  const shown = setup();
  const present = withFrameCallbacks(shown);
  shown.player.connect();
  await play(shown);
  present();
  const visibility = vi.spyOn(document, 'visibilityState', 'get').mockReturnValue('hidden');
  await vi.advanceTimersByTimeAsync(10_000);
  expect(shown.player.state).toEqual({ kind: 'playing' });
  visibility.mockRestore();
  // Seen again: its clock starts now, not at the last frame before it was hidden.
  await vi.advanceTimersByTimeAsync(1250);
  expect(shown.player.state).toEqual({ kind: 'playing' });
  await vi.advanceTimersByTimeAsync(500);
  expect(shown.player.state.kind).toBe('stalled');
});

it('stops watching with the connection: a lost connection is said as such, not as a stopped picture', async () => {
  const h = setup();
  const present = withFrameCallbacks(h);
  h.player.connect();
  await play(h);
  present();
  lastPeer().setConnectionState('failed');
  await vi.advanceTimersByTimeAsync(0);
  expect(h.player.state.kind).toBe('reconnecting');
  await vi.advanceTimersByTimeAsync(900);
  expect(h.states.map((s) => s.kind)).not.toContain('stalled');
});
