import { afterEach, describe, expect, it, vi } from 'vitest';
import { PICTURE_STALL_MS, PictureWatch } from './picture-watch.ts';

/** A watch of `sent` on fake time, with the real limit. */
const watching = (sent: () => number, stalled: (reason: string) => void) =>
  new PictureWatch(sent, stalled, PICTURE_STALL_MS, () => Date.now());

describe('PictureWatch', () => {
  afterEach(() => vi.useRealTimers());

  it('fails a stream whose packets stop, once, after the limit; never one that keeps sending', () => {
    vi.useFakeTimers();
    let packets = 0;
    const stalled = vi.fn();
    const watch = watching(() => packets, stalled);
    // The idle refresh: a few packets every second, for a minute.
    for (let s = 0; s < 60; s++) {
      packets += 3;
      vi.advanceTimersByTime(1000);
    }
    expect(stalled).not.toHaveBeenCalled();
    // The capture (or the encoder) stops without a word.
    vi.advanceTimersByTime(PICTURE_STALL_MS - 1000);
    expect(stalled).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1000);
    expect(stalled).toHaveBeenCalledExactlyOnceWith('no picture was encoded for 10 s');
    vi.advanceTimersByTime(60_000);
    expect(stalled).toHaveBeenCalledTimes(1);
    watch.close();
  });

  it('fails a stream that never sends, and counts again from a reset', () => {
    vi.useFakeTimers();
    const stalled = vi.fn();
    const watch = watching(() => 0, stalled);
    vi.advanceTimersByTime(PICTURE_STALL_MS - 1000);
    watch.reset();
    vi.advanceTimersByTime(PICTURE_STALL_MS - 1000);
    expect(stalled).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1000);
    expect(stalled).toHaveBeenCalledOnce();
    watch.close();
  });

  it('expects nothing while paused (an encoder at rest), and counts again from its resume', () => {
    vi.useFakeTimers();
    const stalled = vi.fn();
    const watch = watching(() => 0, stalled);
    watch.pause();
    vi.advanceTimersByTime(10 * PICTURE_STALL_MS);
    expect(stalled).not.toHaveBeenCalled();
    watch.resume();
    vi.advanceTimersByTime(PICTURE_STALL_MS - 1000);
    expect(stalled).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1000);
    expect(stalled).toHaveBeenCalledOnce();
    watch.close();
  });
});
