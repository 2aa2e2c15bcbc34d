import { queryOptions } from '@tanstack/react-query';
import { getSession } from '../api/get-session';
import { listSessions } from './list-sessions';

/** Query options of sessions, read by several features; keys from general to specific. */
export const sessionQueries = {
  all: () => ['sessions'] as const,
  list: () =>
    queryOptions({
      queryKey: [...sessionQueries.all(), 'list'] as const,
      queryFn: ({ signal }) => listSessions(signal),
      // Pending sessions become ready on their own; a gentle refresh keeps the states honest.
      refetchInterval: 5000,
    }),
  detail: (id: string) =>
    queryOptions({
      queryKey: [...sessionQueries.all(), 'detail', id] as const,
      queryFn: ({ signal }) => getSession(id, signal),
    }),
};
