import { act, renderHook } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answered, useFakeTime } from '../test/fake-time';
import { http, HttpResponse, server } from '../test/server';
import {
  isChunkLoadError,
  RELOAD_AGAIN_AFTER_MS,
  reloadedJustNow,
  useReloadWhenBack,
} from './use-reload-when-back';
import { probeDelay } from './use-service-probe';

describe('reload when back', { timeout: 30_000 }, () => {
  afterEach(() => sessionStorage.clear());

  it('knows the download failures of lazily loaded pages from other errors', () => {
    expect(
      isChunkLoadError(new TypeError('Failed to fetch dynamically imported module: http://h/assets/x.js')),
    ).toBe(true);
    expect(isChunkLoadError(new TypeError('Importing a module script failed.'))).toBe(true);
    expect(isChunkLoadError(new TypeError('Failed to fetch'))).toBe(false);
    expect(isChunkLoadError('Failed to fetch dynamically imported module')).toBe(false);
  });

  it('reloads only once the page address answers again', async () => {
    let up = false;
    let probes = 0;
    server.use(
      http.get(window.location.href, () => {
        probes += 1;
        return up ? new HttpResponse('<html></html>') : HttpResponse.error();
      }),
    );
    useFakeTime();
    const reload = vi.fn();
    const { unmount } = renderHook(() => useReloadWhenBack(true, reload));
    // The first probe comes after its pause, not before.
    await act(() => vi.advanceTimersByTimeAsync(probeDelay(0) - 1));
    expect(probes).toBe(0);
    await act(() => vi.advanceTimersByTimeAsync(1));
    // Its failure sets the next probe, a longer pause on.
    await answered(() => expect(vi.getTimerCount()).toBe(1));
    expect(probes).toBe(1);
    expect(reload).not.toHaveBeenCalled();
    up = true;
    await act(() => vi.advanceTimersByTimeAsync(probeDelay(1)));
    await answered(() => expect(reload).toHaveBeenCalledTimes(1));
    expect(probes).toBe(2);
    unmount();
  });

  it('reloads once: the same failure right after that reload does not reload the page over and over', async () => {
    let probes = 0;
    server.use(
      http.get(window.location.href, () => {
        probes += 1;
        return new HttpResponse('<html></html>');
      }),
    );
    useFakeTime();
    const reload = vi.fn();
    const first = renderHook(() => useReloadWhenBack(true, reload));
    expect(first.result.current).toBe(true);
    await act(() => vi.advanceTimersByTimeAsync(probeDelay(0)));
    await answered(() => expect(reload).toHaveBeenCalledTimes(1));
    first.unmount();

    // The reloaded page meets the same failure: it says so, and waits for the person: nothing is scheduled, and
    // no probe goes out in the time a first one would have.
    const probesBefore = probes;
    const timersBefore = vi.getTimerCount();
    const again = renderHook(() => useReloadWhenBack(true, reload));
    expect(again.result.current).toBe(false);
    expect(vi.getTimerCount()).toBe(timersBefore);
    await act(() => vi.advanceTimersByTimeAsync(1500));
    expect(probes).toBe(probesBefore);
    expect(reload).toHaveBeenCalledTimes(1);
    again.unmount();

    // A failure later on is a new one.
    expect(reloadedJustNow(Date.now() + RELOAD_AGAIN_AFTER_MS)).toBe(false);
  });
});
