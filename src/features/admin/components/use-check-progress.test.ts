import { act, renderHook, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { useCheckProgress } from './use-check-progress';

describe('useCheckProgress', () => {
  it('renders once for a burst of counts, with the last of them', async () => {
    let renders = 0;
    const { result } = renderHook(() => {
      renders += 1;
      return useCheckProgress();
    });
    const before = renders;

    act(() => {
      for (let checked = 0; checked <= 1000; checked += 1) result.current.onProgress(checked, 1000);
    });
    await waitFor(() => expect(result.current.progress).toEqual({ checked: 1000, total: 1000 }));
    expect(renders - before).toBe(1);
  });

  it('forgets the count on reset, even with an update still pending', async () => {
    const { result } = renderHook(() => useCheckProgress());
    act(() => result.current.onProgress(5, 10));
    await waitFor(() => expect(result.current.progress).toEqual({ checked: 5, total: 10 }));

    act(() => {
      result.current.onProgress(6, 10);
      result.current.reset();
    });
    // The frame asked for by the last count has run and did not bring the count back.
    await act(() => new Promise<void>((resolve) => requestAnimationFrame(() => resolve())));
    expect(result.current.progress).toBeUndefined();
  });
});
