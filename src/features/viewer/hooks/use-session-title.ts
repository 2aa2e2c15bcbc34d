import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { appQueries } from '../../../lib/queries/app-queries';
import { sessionQueries } from '../../../lib/queries/session-queries';
import { getStartedSessions } from '../../../lib/session-history';

/** How a viewer names its session: the application, its version and the profile. */
export interface SessionTitle {
  app: string;
  version: string | undefined;
  profile: string | undefined;
}

// Names change rarely, and a heading that refetched would toast its failures after the session ended.
const quiet = { staleTime: Infinity, throwOnError: false, refetchOnWindowFocus: false } as const;

/**
 * The session's application, version and profile, by their catalog names where the catalog answers and by
 * their ids otherwise. They come from the service (its `app`, `version`, `profile` fields) or, where a
 * deployment lacks those, from what this browser remembers launching; undefined when neither knows.
 */
export function useSessionTitle(id: string, enabled: boolean): SessionTitle | undefined {
  // Never fetched here: the player's own lookups of the session fill this entry (see viewer-page.tsx).
  const session = useQuery({ ...sessionQueries.detail(id), ...quiet, enabled: false });
  const local = useMemo(
    () => (enabled ? getStartedSessions().find((s) => s.id === id) : undefined),
    [id, enabled],
  );
  const app = session.data?.app ?? local?.app;
  const version = session.data?.version ?? local?.version;
  const profile = session.data?.profile ?? local?.profile;
  const appName = useQuery({
    ...appQueries.detail(app ?? ''),
    ...quiet,
    enabled: app !== undefined,
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
