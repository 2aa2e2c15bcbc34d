import { queryOptions } from '@tanstack/react-query';
import { listAuditEvents, type AuditQuery } from '../../../lib/api/list-audit-events';
import { getAvailability } from './get-availability';
import { readCapacity, type CapacityReading } from './read-capacity';

/** Query options of the admin pages, keys from general to specific. */
export const adminQueries = {
  all: () => ['admin'] as const,
  /** Which profiles apply to which application versions, from the catalog's lists. */
  availability: () =>
    queryOptions({
      queryKey: [...adminQueries.all(), 'availability'] as const,
      queryFn: ({ signal }) => getAvailability(signal),
    }),
  /**
   * GPUs in use, warm applications, the queue and the door, with the relay's bandwidth since the poll before
   * (each read is compared with the one the cache holds); null where the service does not tell.
   */
  capacity: () =>
    queryOptions({
      queryKey: [...adminQueries.all(), 'capacity'] as const,
      queryFn: ({ signal, client, queryKey }) =>
        readCapacity(client.getQueryData<CapacityReading | null>(queryKey), signal),
      refetchInterval: 5_000,
    }),
  /** The audit log's newest events that match `query`, newest first (admins only). */
  audit: (query: AuditQuery) =>
    queryOptions({
      queryKey: [...adminQueries.all(), 'audit', query] as const,
      queryFn: ({ signal }) => listAuditEvents(query, signal),
    }),
};
