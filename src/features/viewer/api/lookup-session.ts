import { isApiError } from '../../../lib/api-client';
import type { SessionLookup } from '../../../player/player-types';
import { getSession } from '../../../lib/api/get-session';

/**
 * What the player needs to know about a session: ready with routes, still pending, or gone.
 * 404 and 410 mean gone for good; other failures reject so that the player tries again later.
 */
export async function lookupSession(id: string): Promise<SessionLookup> {
  try {
    const session = await getSession(id);
    if (session.status.condition === 'ready' && session.routes)
      return { status: 'ready', routes: session.routes };
    return { status: 'pending', message: session.status.message };
  } catch (error) {
    if (isApiError(error) && error.status === 404)
      return { status: 'ended', reason: 'This session has ended.' };
    if (isApiError(error) && error.status === 410) {
      const detail = typeof error.detail === 'string' ? ` ${error.detail}` : '';
      return { status: 'ended', reason: `This session has ended: it failed.${detail}` };
    }
    throw error;
  }
}
