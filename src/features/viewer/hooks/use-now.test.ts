import { act, renderHook } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useNow } from './use-now';

afterEach(() => vi.useRealTimers());

describe('useNow', () => {
  it('refreshes at once when it becomes active, then every interval, and stops when inactive', async () => {
    vi.useFakeTimers({ now: 1_000 });
    const { result, rerender } = renderHook(({ active }) => useNow(active, 250), {
      initialProps: { active: false },
    });
    expect(result.current).toBe(1_000);
    await act(() => vi.advanceTimersByTimeAsync(10_000));
    expect(result.current).toBe(1_000);
    rerender({ active: true });
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(result.current).toBe(11_000);
    await act(() => vi.advanceTimersByTimeAsync(250));
    expect(result.current).toBe(11_250);
    rerender({ active: false });
    await act(() => vi.advanceTimersByTimeAsync(1_000));
    expect(result.current).toBe(11_250);
  });
});
