import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { appQueries } from '../../../lib/queries/app-queries';
import type { Session } from '../../../lib/api-client';
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
 * `session`: what the page last heard of it (the page follows it, see viewer-page.tsx).
 */
export function useSessionTitle(
  id: string,
  session: Session | undefined,
  enabled: boolean,
): SessionTitle | undefined {
  const local = useMemo(
    () => (enabled ? getStartedSessions().find((s) => s.id === id) : undefined),
    [id, enabled],
  );
  const app = session?.app ?? local?.app;
  const version = session?.version ?? local?.version;
  const profile = session?.profile ?? local?.profile;
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
