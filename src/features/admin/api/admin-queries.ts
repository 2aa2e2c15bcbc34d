import { queryOptions } from '@tanstack/react-query';
import { getCapacity } from '../../../lib/api/get-capacity';
import { getAvailability } from './get-availability';

/** Query options of the admin pages, keys from general to specific. */
export const adminQueries = {
  all: () => ['admin'] as const,
  /** Which profiles apply to which application versions, from the catalog's lists. */
  availability: () =>
    queryOptions({
      queryKey: [...adminQueries.all(), 'availability'] as const,
      queryFn: ({ signal }) => getAvailability(signal),
    }),
  /** GPUs in use, warm applications and the queue; null where the service does not tell. */
  capacity: () =>
    queryOptions({
      queryKey: [...adminQueries.all(), 'capacity'] as const,
      queryFn: ({ signal }) => getCapacity(signal),
      refetchInterval: 5_000,
    }),
};
