import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { Application, ListEnvelope } from '../api-client';
import { launchLabel } from '../launch-label';
import { appQueries } from './app-queries';

/** What a session runs, by ids (the service's `app`, `version`, `profile`, or this browser's memory). */
export interface LaunchIds {
  app: string | undefined;
  version: string | undefined;
  profile: string | undefined;
}

/** The same, by the catalog's names where it answers ("USD Viewer", "Light"), by ids otherwise. */
export interface LaunchNames {
  app: string;
  version: string | undefined;
  profile: string | undefined;
}

// Names change rarely, and a heading that refetched would toast its failures after the session ended.
const quiet = { staleTime: Infinity, throwOnError: false, refetchOnWindowFocus: false } as const;

/**
 * The catalog's names of what a session runs, for a person to read instead of ids: from the query cache
 * where a catalog page already put them (the catalog's list holds every application's name), else asked
 * once. Undefined without an application.
 */
export function useLaunchNames(ids: LaunchIds): LaunchNames | undefined {
  const { app, version, profile } = ids;
  const queryClient = useQueryClient();
  const appName = useQuery({
    ...appQueries.detail(app ?? ''),
    ...quiet,
    enabled: app !== undefined,
    initialData: () =>
      queryClient
        .getQueriesData<ListEnvelope<Application>>({ queryKey: [...appQueries.all(), 'list'] })
        .flatMap(([, list]) => list?.items ?? [])
        .find((a) => a.id === app),
    select: (a) => a.name,
  });
  const profileName = useQuery({
    ...appQueries.profiles(app ?? '', version ?? ''),
    ...quiet,
    enabled: app !== undefined && version !== undefined && profile !== undefined,
    select: (list) => list.find((p) => p.id === profile)?.name,
  });
  if (app === undefined) return undefined;
  return { app: appName.data ?? app, version, profile: profileName.data ?? profile };
}

/** "USD Viewer 1.2.0 (Light)": what a session runs, by the catalog's names where it answers. */
export function useLaunchLabel(ids: LaunchIds | undefined): string | undefined {
  const names = useLaunchNames(ids ?? { app: undefined, version: undefined, profile: undefined });
  return names && launchLabel(names.app, names.version, names.profile);
}
