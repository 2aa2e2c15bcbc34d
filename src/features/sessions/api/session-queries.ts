import { queryOptions } from '@tanstack/react-query';
import { listSessions } from './list-sessions';

/** Query options of the sessions page, keys from general to specific. */
export const sessionQueries = {
  all: () => ['sessions'] as const,
  list: () =>
    queryOptions({
      queryKey: [...sessionQueries.all(), 'list'] as const,
      queryFn: ({ signal }) => listSessions(signal),
      // Pending sessions become ready on their own; a gentle refresh keeps the states honest.
      refetchInterval: 5000,
    }),
};
