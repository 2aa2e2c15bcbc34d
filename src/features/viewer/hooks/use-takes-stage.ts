import { useQuery } from '@tanstack/react-query';
import type { Session } from '../../../lib/api-client';
import { appQueries } from '../../../lib/queries/app-queries';
import { takesStage } from '../../../lib/versions';

/**
 * Whether the session's application opens USD stages, so that the viewer offers "Open stage": its version
 * declares `usd_stage_uri` (CONTRACT §20), or nothing is declared (a deployment without declarations, a
 * session that does not say what it runs, a catalog that does not answer: as before). Never for `shared`
 * watch links, which make no API call.
 */
export function useTakesStage(session: Session | undefined, shared: boolean): boolean {
  const app = session?.app ?? '';
  // Asked once the session runs: its controls come with the stream, after the first frame.
  const running = session?.status.condition === 'ready';
  const versions = useQuery({ ...appQueries.versions(app), enabled: !shared && app !== '' && running });
  if (shared || !session) return false;
  if (app === '' || versions.isError) return true;
  if (!versions.isSuccess) return false;
  return takesStage(versions.data.find((v) => v.version === session.version));
}
