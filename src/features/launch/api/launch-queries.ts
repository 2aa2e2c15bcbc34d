import { queryOptions } from '@tanstack/react-query';
import { isApiError } from '../../../lib/api-client';
import { appQueries } from '../../../lib/queries/app-queries';
import { sessionQueries } from '../../../lib/queries/session-queries';

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

/** Query options of the launch wizard: the shared catalog's, and its own polling of the session it made. */
export const launchQueries = {
  apps: () => appQueries.list([]),
  versions: appQueries.versions,
  profiles: appQueries.profiles,
  session: (id: string) =>
    queryOptions({
      ...sessionQueries.detail(id),
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
