import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Coalescer } from './changes.ts';

describe('Coalescer', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('tells a burst of changes once, the delay after its first', () => {
    const fire = vi.fn();
    const coalescer = new Coalescer(100, fire);
    coalescer.poke();
    vi.advanceTimersByTime(60);
    coalescer.poke();
    coalescer.poke();
    vi.advanceTimersByTime(39);
    expect(fire).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fire).toHaveBeenCalledTimes(1);
  });

  it('tells a change after the last call again, so the last state is always told', () => {
    const fire = vi.fn();
    const coalescer = new Coalescer(100, fire);
    coalescer.poke();
    vi.advanceTimersByTime(100);
    coalescer.poke();
    vi.advanceTimersByTime(100);
    expect(fire).toHaveBeenCalledTimes(2);
  });

  it('tells nothing once closed, not even what was waiting', () => {
    const fire = vi.fn();
    const coalescer = new Coalescer(100, fire);
    coalescer.poke();
    coalescer.close();
    coalescer.poke();
    vi.advanceTimersByTime(1000);
    expect(fire).not.toHaveBeenCalled();
  });
});
