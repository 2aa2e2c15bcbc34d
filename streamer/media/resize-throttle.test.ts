import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RESIZE_INTERVAL_MS, ResizeThrottle } from './resize-throttle.ts';

/** A throttle whose applications are recorded; a size equal to the last applied one changes nothing. */
function recorded() {
  const applied: string[] = [];
  const throttle = new ResizeThrottle((width, height) => {
    const size = `${width}x${height}`;
    if (applied.at(-1) === size) return false;
    applied.push(size);
    return true;
  });
  return { applied, throttle };
}

describe('ResizeThrottle', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('applies a lone resize at once', () => {
    const { applied, throttle } = recorded();
    throttle.resize(640, 360);
    expect(applied).toEqual(['640x360']);
  });

  it('applies the last of a burst when the interval is over, and nothing in between', () => {
    const { applied, throttle } = recorded();
    for (let i = 0; i < 3_000; i++) throttle.resize(320 + (i % 2) * 2, 180);
    throttle.resize(800, 600);
    expect(applied).toEqual(['320x180']);
    vi.advanceTimersByTime(RESIZE_INTERVAL_MS - 1);
    expect(applied).toEqual(['320x180']);
    vi.advanceTimersByTime(1);
    expect(applied).toEqual(['320x180', '800x600']);
    vi.advanceTimersByTime(10 * RESIZE_INTERVAL_MS);
    expect(applied).toEqual(['320x180', '800x600']);
  });

  it('restarts at most once an interval however long the resizes go on', () => {
    const { applied, throttle } = recorded();
    // A resize every 10 ms for 5 s, each to a new size.
    for (let i = 0; i < 500; i++) {
      throttle.resize(400 + i * 2, 300);
      vi.advanceTimersByTime(10);
    }
    vi.advanceTimersByTime(RESIZE_INTERVAL_MS);
    expect(applied).toHaveLength(6);
    expect(applied.at(-1)).toBe('1398x300');
  });

  it('applies a resize at once again after a quiet interval', () => {
    const { applied, throttle } = recorded();
    throttle.resize(640, 360);
    vi.advanceTimersByTime(RESIZE_INTERVAL_MS);
    throttle.resize(800, 600);
    expect(applied).toEqual(['640x360', '800x600']);
  });

  it('starts no interval for a resize that changed nothing', () => {
    const { applied, throttle } = recorded();
    throttle.resize(640, 360);
    vi.advanceTimersByTime(RESIZE_INTERVAL_MS);
    throttle.resize(640, 360);
    throttle.resize(800, 600);
    expect(applied).toEqual(['640x360', '800x600']);
  });

  it('applies nothing after close, and leaves no timer behind', () => {
    const { applied, throttle } = recorded();
    throttle.resize(640, 360);
    throttle.resize(800, 600);
    throttle.close();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(RESIZE_INTERVAL_MS);
    throttle.resize(1024, 768);
    expect(applied).toEqual(['640x360']);
  });
});
