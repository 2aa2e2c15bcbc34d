/** A FrameClock (streamer/display/capture.ts) on the fake timers' time: moved only by the test (vi.useFakeTimers). */
import type { FrameClock } from '../streamer/display/capture.ts';

export const fakeFrameClock: FrameClock = {
  now: () => Date.now(),
  schedule(run, ms) {
    const timer = setTimeout(run, ms);
    return { cancel: () => clearTimeout(timer) };
  },
};
