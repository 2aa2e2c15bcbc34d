import { queryOptions } from '@tanstack/react-query';
import { listFiles } from './list-files';

/** Query options of a session's files; keys from general to specific. */
export const filesQueries = {
  all: () => ['files'] as const,
  list: (sessionId: string) =>
    queryOptions({
      queryKey: [...filesQueries.all(), 'list', sessionId] as const,
      queryFn: ({ signal }) => listFiles(sessionId, signal),
      // Asked again whenever the panel opens and whenever the application says the folder changed; never
      // polled. A stale listing would refuse or accept an upload on the wrong room, so none is ever fresh.
      staleTime: 0,
    }),
};
