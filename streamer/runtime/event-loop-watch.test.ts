import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BLOCKED_MS, WATCH_INTERVAL_MS, watchEventLoop } from './event-loop-watch.ts';

/** A watch on a clock the test moves: `block(ms)` holds the loop up that long before the next timer runs. */
function watched() {
  const lines: string[] = [];
  let ms = 0;
  const stop = watchEventLoop(
    (line) => lines.push(line),
    () => ms,
  );
  const tick = (n: number) => {
    for (let i = 0; i < n; i++) {
      ms += WATCH_INTERVAL_MS;
      vi.advanceTimersByTime(WATCH_INTERVAL_MS);
    }
  };
  const block = (late: number) => {
    ms += late;
    tick(1);
  };
  return { lines, stop, tick, block };
}

describe('watchEventLoop', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('says nothing while the loop keeps up', () => {
    const { lines, tick, block } = watched();
    tick(20);
    block(BLOCKED_MS - 1);
    tick(20);
    expect(lines).toEqual([]);
  });

  it('logs a line, once, when a timer came a second or more late', () => {
    const { lines, tick, block } = watched();
    tick(3);
    block(2_345);
    tick(10);
    expect(lines).toEqual(['the event loop was held up for 2.3 s: viewers and /health waited meanwhile']);
  });

  it('stops', () => {
    const { lines, stop, block } = watched();
    stop();
    expect(vi.getTimerCount()).toBe(0);
    block(5_000);
    expect(lines).toEqual([]);
  });
});
