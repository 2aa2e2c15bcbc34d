/**
 * Fake time for portal tests: the timers and the clock that the pages' polling, React Query and the service
 * probe read are faked and moved on by hand, while what MSW answers arrives in I/O turns as it does.
 */
import { act } from '@testing-library/react';
import { defaultScheduler, notifyManager } from '@tanstack/react-query';
import { onTestFinished, vi } from 'vitest';

/**
 * Fakes the timers and `Date` until the end of the current test. performance.now, setImmediate and the
 * microtasks stay real: MSW and the lazy imports run on them, and `answered` waits on them.
 *
 * React Query hands its results to the page in a batch after `setTimeout(0)`; a fake timer set while fake timers
 * run is due a millisecond later, so each answer would need time moved on to be seen. Its batches run in a
 * microtask instead, as its notifyManager allows, so that an answer shows without moving the clock.
 */
export function useFakeTime(): void {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
  notifyManager.setScheduler(queueMicrotask);
  onTestFinished(() => {
    notifyManager.setScheduler(defaultScheduler);
    vi.useRealTimers();
  });
}

/**
 * Waits for what only I/O brings (MSW's answers), running the timers that fall due meanwhile, and returns what
 * `check` returns once it passes. Fake time does not move (vi.waitFor would move it on at each try), so what the
 * test sees does not depend on the machine's speed; the real deadline only ends a test that would otherwise hang.
 */
export async function answered<T>(check: () => T): Promise<T> {
  const deadline = performance.now() + 10_000;
  for (;;) {
    await act(() => vi.advanceTimersByTimeAsync(0));
    try {
      return check();
    } catch (error) {
      if (performance.now() > deadline) throw error;
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
}
