import { queryOptions } from '@tanstack/react-query';
import { checkProfiles } from './check-profiles';

/** Query options of the admin pages, keys from general to specific. */
export const adminQueries = {
  all: () => ['admin'] as const,
  profileReport: () =>
    queryOptions({
      queryKey: [...adminQueries.all(), 'profiles'] as const,
      queryFn: ({ signal }) => checkProfiles(signal),
      // A check is costly; it runs again only when asked.
      staleTime: Infinity,
    }),
};
