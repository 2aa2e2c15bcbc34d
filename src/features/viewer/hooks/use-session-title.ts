import { useMemo } from 'react';
import type { Session } from '../../../lib/api-client';
import { useLaunchNames, type LaunchNames } from '../../../lib/queries/use-launch-names';
import { getStartedSessions } from '../../../lib/session-history';

/** How a viewer names its session: the application, its version and the profile. */
export type SessionTitle = LaunchNames;

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
  return useLaunchNames({
    app: session?.app ?? local?.app,
    version: session?.version ?? local?.version,
    profile: session?.profile ?? local?.profile,
  });
}
