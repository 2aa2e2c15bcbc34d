import { queryOptions } from '@tanstack/react-query';
import { isApiError } from '../../../lib/api-client';
import { getApps } from '../../../lib/api/get-apps';
import { getProfiles } from '../../../lib/api/get-profiles';
import { getSession } from '../../../lib/api/get-session';
import { getVersions } from '../../../lib/api/get-versions';

/** Polling of a pending session: quick at first, then backing off x1.5 up to 5 s. */
export function pollDelay(polls: number): number {
  return Math.min(500 * 1.5 ** polls, 5000);
}

/**
 * A failure that says nothing about the session: no answer (status 0), or a 5xx while the service restarts
 * or a proxy has lost it. Polling goes on through these; a 404 or 410 is an answer and ends it.
 */
export function isTransientFailure(error: unknown): boolean {
  return isApiError(error) && (error.status === 0 || error.status >= 500);
}

/** Query options of the launch wizard; the keys match the catalog's so both share cached answers. */
export const launchQueries = {
  apps: () =>
    queryOptions({
      queryKey: ['apps', 'list', { tags: [] as string[] }] as const,
      queryFn: ({ signal }) => getApps([], signal),
    }),
  versions: (id: string) =>
    queryOptions({
      queryKey: ['apps', 'detail', id, 'versions'] as const,
      queryFn: ({ signal }) => getVersions(id, signal),
    }),
  profiles: (id: string, version: string) =>
    queryOptions({
      queryKey: ['apps', 'detail', id, 'versions', version, 'profiles'] as const,
      queryFn: ({ signal }) => getProfiles(id, version, signal),
    }),
  session: (id: string) =>
    queryOptions({
      queryKey: ['sessions', 'detail', id] as const,
      queryFn: ({ signal }) => getSession(id, signal),
      staleTime: 0,
      // The pending view explains every failure itself; a lost service must not replace it with an error page.
      throwOnError: false,
      refetchInterval: (query) => {
        if (query.state.status === 'error' && !isTransientFailure(query.state.error)) return false;
        if (query.state.data?.status.condition === 'ready') return false;
        return pollDelay(query.state.dataUpdateCount + query.state.errorUpdateCount);
      },
    }),
};
