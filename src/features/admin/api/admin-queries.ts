import { queryOptions } from '@tanstack/react-query';
import { getCapacity } from '../../../lib/api/get-capacity';
import { checkProfiles, type CheckProgressListener } from './check-profiles';

/** Query options of the admin pages, keys from general to specific. */
export const adminQueries = {
  all: () => ['admin'] as const,
  /**
   * The full profile check. `onProgress` is not part of the key: it watches a run without changing its
   * result, and a run reports to the listener of the component that started it.
   */
  profileReport: (onProgress?: CheckProgressListener) =>
    // eslint-disable-next-line @tanstack/query/exhaustive-deps -- the listener does not change the result
    queryOptions({
      queryKey: [...adminQueries.all(), 'profiles'] as const,
      queryFn: ({ signal }) => checkProfiles(signal, onProgress),
      // A check is costly; it runs again only when asked.
      staleTime: Infinity,
    }),
  /** GPUs in use, warm applications and the queue; null where the service does not tell. */
  capacity: () =>
    queryOptions({
      queryKey: [...adminQueries.all(), 'capacity'] as const,
      queryFn: ({ signal }) => getCapacity(signal),
      refetchInterval: 5_000,
    }),
};
