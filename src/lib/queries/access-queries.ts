import { queryOptions } from '@tanstack/react-query';
import { readsAuditLog } from '../api/list-audit-events';

/** What the caller may do, as the service answers it; read by several features. Keys from general to specific. */
export const accessQueries = {
  all: () => ['access'] as const,
  /**
   * Whether the caller is an admin (the service lets them read the audit log): the admin pages and filters show
   * for them only. A person's roles change rarely; signing in again, or new settings, starts anew.
   */
  admin: () =>
    queryOptions({
      queryKey: [...accessQueries.all(), 'admin'] as const,
      queryFn: ({ signal }) => readsAuditLog(signal),
      staleTime: 5 * 60_000,
    }),
};
