import { useQuery } from '@tanstack/react-query';
import type { Session } from '../../../lib/api-client';
import { appQueries } from '../../../lib/queries/app-queries';

/**
 * The file extensions the session's program opens (its version's `opens`), or undefined where the catalog
 * says none, does not answer, or the session does not say what it runs. Asked only while `enabled`.
 */
export function useVersionOpens(session: Session | undefined, enabled: boolean): string[] | undefined {
  const app = session?.app ?? '';
  const versions = useQuery({ ...appQueries.versions(app), enabled: enabled && app !== '' });
  return versions.data?.find((v) => v.version === session?.version)?.opens;
}
