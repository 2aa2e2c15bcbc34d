import { renderHook, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { http, HttpResponse, server } from '../test/server';
import { isChunkLoadError, useReloadWhenBack } from './use-reload-when-back';

describe('reload when back', { timeout: 30_000 }, () => {
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
    const reload = vi.fn();
    const { unmount } = renderHook(() => useReloadWhenBack(true, reload));
    await waitFor(() => expect(probes).toBeGreaterThan(0));
    expect(reload).not.toHaveBeenCalled();
    up = true;
    await waitFor(() => expect(reload).toHaveBeenCalledTimes(1));
    unmount();
  });
});
