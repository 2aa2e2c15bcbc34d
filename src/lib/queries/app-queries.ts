import { queryOptions } from '@tanstack/react-query';
import { getApp } from '../api/get-app';
import { getApps } from '../api/get-apps';
import { getProfiles } from '../api/get-profiles';

/** Query options of the catalog, read by several features; keys from general to specific. */
export const appQueries = {
  all: () => ['apps'] as const,
  list: (tags: readonly string[]) =>
    queryOptions({
      queryKey: [...appQueries.all(), 'list', { tags: [...tags].sort() }] as const,
      queryFn: ({ signal }) => getApps(tags, signal),
    }),
  detail: (id: string) =>
    queryOptions({
      queryKey: [...appQueries.all(), 'detail', id] as const,
      queryFn: ({ signal }) => getApp(id, signal),
    }),
  versions: (id: string) =>
    queryOptions({
      queryKey: [...appQueries.all(), 'detail', id, 'versions'] as const,
      // Loaded when first asked: their SemVer sorting is not needed by the first page (the catalog).
      queryFn: async ({ signal }) => (await import('../api/get-versions')).getVersions(id, signal),
    }),
  profiles: (id: string, version: string) =>
    queryOptions({
      queryKey: [...appQueries.all(), 'detail', id, 'versions', version, 'profiles'] as const,
      queryFn: ({ signal }) => getProfiles(id, version, signal),
    }),
};
