import { QueryClient, QueryClientProvider, type QueryState } from '@tanstack/react-query';
import { act, renderHook } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../api-client';
import { pending, ready, sessionId } from '../../test/fixtures';
import { api, http, HttpResponse, server } from '../../test/server';
import {
  pollDelay,
  readSession,
  sessionPolling,
  useWatchedSession,
  WAITING_POLL_MS,
  type SessionState,
} from './session-queries';

function answer(status: number, body: Record<string, unknown>) {
  server.use(http.get(api('/stream/:id'), () => HttpResponse.json(body, { status })));
}

describe('readSession', () => {
  it('gives the session, pending (202) or ready (200) with its routes in the array form', async () => {
    answer(202, pending);
    expect(await readSession(sessionId)).toEqual({ session: pending, ended: undefined });
    const route = ready.routes!['127.0.0.1']!;
    answer(200, { ...ready, routes: { h: { routes: route } } });
    expect(await readSession(sessionId)).toEqual({
      session: { ...ready, routes: { h: route } },
      ended: undefined,
    });
  });

  it('says ended for 404 and for 410 with the reason, keeping what the service said before', async () => {
    answer(404, { detail: 'No such session.' });
    expect(await readSession(sessionId, undefined, ready)).toEqual({
      session: ready,
      ended: 'No session has this id: it does not exist, or it has ended.',
    });
    answer(410, { detail: 'The application exited.' });
    expect(await readSession(sessionId)).toEqual({
      session: undefined,
      ended: 'This session has ended: it failed. The application exited.',
    });
  });

  it('rejects on other failures, for the page to explain', async () => {
    answer(500, { detail: 'Boom.' });
    await expect(readSession(sessionId)).rejects.toMatchObject({ status: 500 });
  });
});

describe('the polling of a session', () => {
  const state = (changes: Partial<QueryState<SessionState>>): QueryState<SessionState> => ({
    data: undefined,
    dataUpdateCount: 0,
    dataUpdatedAt: 0,
    error: null,
    errorUpdateCount: 0,
    errorUpdatedAt: 0,
    fetchFailureCount: 0,
    fetchFailureReason: null,
    fetchMeta: null,
    isInvalidated: false,
    status: 'pending',
    fetchStatus: 'idle',
    ...changes,
  });

  it('polls quickly at first, backs off x1.5 and caps at 5 s', () => {
    expect([0, 1, 2, 3].map(pollDelay)).toEqual([500, 750, 1125, 1687.5]);
    expect(pollDelay(20)).toBe(5000);
  });

  it('backs off over answers and lost contact alike, and keeps the slowest pace once the session runs', () => {
    const waiting = { session: pending, ended: undefined };
    expect(sessionPolling(state({ status: 'success', data: waiting, dataUpdateCount: 1 }))).toBe(750);
    // A session waiting for a GPU (or starting) is asked about every second at most: it may go at any moment.
    expect(sessionPolling(state({ status: 'success', data: waiting, dataUpdateCount: 30 }))).toBe(
      WAITING_POLL_MS,
    );
    const lost = new ApiError(0, 'Failed to fetch');
    expect(
      sessionPolling(
        state({ status: 'error', data: waiting, error: lost, dataUpdateCount: 1, errorUpdateCount: 2 }),
      ),
    ).toBe(1687.5);
    expect(
      sessionPolling(
        state({ status: 'error', error: new ApiError(502, 'Bad gateway'), errorUpdateCount: 1 }),
      ),
    ).toBe(750);
    const running = { session: ready, ended: undefined };
    expect(sessionPolling(state({ status: 'success', data: running, dataUpdateCount: 30 }))).toBe(5000);
  });

  it('stops once the session has ended or the service refused', () => {
    expect(sessionPolling(state({ status: 'success', data: { session: ready, ended: 'gone' } }))).toBe(false);
    expect(sessionPolling(state({ status: 'error', error: new ApiError(403, 'Not authenticated') }))).toBe(
      false,
    );
  });
});

describe('a waiting session, followed by a page', () => {
  afterEach(() => vi.useRealTimers());

  it('is seen ready within a second of getting a GPU, however long it waited', async () => {
    vi.useFakeTimers();
    let gpuFree = false;
    let polls = 0;
    server.use(
      http.get(api('/stream/:id'), () => {
        polls += 1;
        return gpuFree ? HttpResponse.json(ready) : HttpResponse.json(pending, { status: 202 });
      }),
    );
    const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const wrapper = ({ children }: { children: ReactNode }) => (
      <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
    );
    const { result } = renderHook(() => useWatchedSession(sessionId), { wrapper });
    // A minute in the queue: long past the point where the old policy had backed off to 5 s.
    await act(() => vi.advanceTimersByTimeAsync(60_000));
    expect(result.current.data?.session?.status.condition).toBe('pending');
    expect(polls).toBeGreaterThan(55);
    gpuFree = true;
    await act(() => vi.advanceTimersByTimeAsync(WAITING_POLL_MS));
    expect(result.current.data?.session?.status.condition).toBe('ready');
    // Once it runs, the page asks only at the slow pace.
    const atReady = polls;
    await act(() => vi.advanceTimersByTimeAsync(30_000));
    expect(polls - atReady).toBeLessThan(10);
  });
});
