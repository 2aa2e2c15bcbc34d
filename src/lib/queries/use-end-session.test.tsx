import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { describe, expect, it } from 'vitest';
import { sessionId } from '../../test/fixtures';
import { api, http, HttpResponse, server } from '../../test/server';
import { getStartedSessions, rememberSession } from '../session-history';
import { sessionQueries } from './session-queries';
import { useEndSession } from './use-end-session';

function renderEndSession() {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  // A list of sessions already shown: ending one must refresh it.
  queryClient.setQueryData(sessionQueries.list().queryKey, { source: 'service', rows: [] });
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
  );
  return { queryClient, ...renderHook(() => useEndSession(), { wrapper }) };
}

const remembered = { id: sessionId, app: 'usd-viewer', version: '1.2.0', profile: 'default', startedAt: 1 };

describe('useEndSession', () => {
  it('deletes the session, forgets it in this browser and refreshes the lists', async () => {
    const deleted: string[] = [];
    server.use(
      http.delete(api('/stream/:id'), ({ params }) => {
        deleted.push(String(params.id));
        return new HttpResponse(null, { status: 204 });
      }),
    );
    rememberSession(remembered);
    const { result, queryClient } = renderEndSession();
    let pageDone = false;
    act(() => result.current.mutate(sessionId, { onSuccess: () => (pageDone = true) }));
    await waitFor(() => expect(result.current.isSuccess).toBe(true));
    expect(deleted).toEqual([sessionId]);
    expect(getStartedSessions()).toEqual([]);
    expect(queryClient.getQueryState(sessionQueries.list().queryKey)?.isInvalidated).toBe(true);
    expect(pageDone).toBe(true);
  });

  it('counts a session that is already gone (404) as ended', async () => {
    server.use(
      http.delete(api('/stream/:id'), () =>
        HttpResponse.json({ detail: 'No such session.' }, { status: 404 }),
      ),
    );
    rememberSession(remembered);
    const { result } = renderEndSession();
    act(() => result.current.mutate(sessionId));
    await waitFor(() => expect(result.current.isSuccess).toBe(true));
    expect(getStartedSessions()).toEqual([]);
  });

  it('keeps the session and gives the failure when the service refuses', async () => {
    server.use(
      http.delete(api('/stream/:id'), () => HttpResponse.json({ detail: 'Not yours.' }, { status: 403 })),
    );
    rememberSession(remembered);
    const { result, queryClient } = renderEndSession();
    act(() => result.current.mutate(sessionId));
    await waitFor(() => expect(result.current.isError).toBe(true));
    expect(result.current.error).toMatchObject({ status: 403 });
    expect(getStartedSessions()).toHaveLength(1);
    expect(queryClient.getQueryState(sessionQueries.list().queryKey)?.isInvalidated).toBe(false);
  });
});
