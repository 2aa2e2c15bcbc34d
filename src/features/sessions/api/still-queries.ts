import { queryOptions } from '@tanstack/react-query';
import { getSessionStill } from '../../../lib/api/get-still';

/** How often the sessions page asks for a newer still (the applications make one every 3 s). */
export const STILL_REFRESH_MS = 10_000;

/** Query options of the sessions' stills. */
export const stillQueries = {
  all: () => ['stills'] as const,
  /** A session's recent still, null when it has none; renewed while the page is visible. */
  still: (sessionId: string) =>
    queryOptions({
      queryKey: [...stillQueries.all(), sessionId] as const,
      queryFn: ({ signal }) => getSessionStill(sessionId, signal),
      refetchInterval: STILL_REFRESH_MS,
      // A picture is decoration: a failure shows the last one, or none, and the next round tries again.
      retry: false,
      // Blobs are not kept once no row shows them.
      gcTime: 0,
    }),
};
