import { isApiError, type Session } from '../../../lib/api-client';
import type { SessionLookup } from '../../../player';
import { createTicket } from '../../../lib/api/create-ticket';
import { getSession } from '../../../lib/api/get-session';

/**
 * What the player needs to know about a session: ready with routes (and a fresh viewer ticket where the
 * deployment issues them), still pending, or gone. 404 and 410 mean gone for good; other failures
 * reject so that the player tries again later. `onSession` gets each answer, for the page to show without
 * asking again.
 */
export async function lookupSession(
  id: string,
  scope: 'control' | 'watch' = 'control',
  onSession?: (session: Session) => void,
): Promise<SessionLookup> {
  try {
    const session = await getSession(id);
    onSession?.(session);
    if (session.status.condition === 'ready' && session.routes) {
      // Asked for at each connection: a control ticket lasts only until its viewer has connected.
      const ticket = await createTicket(id, scope);
      return { status: 'ready', routes: session.routes, ...(ticket ? { ticket: ticket.ticket } : {}) };
    }
    return { status: 'pending', message: session.status.message };
  } catch (error) {
    // The link may name a session that ended long ago or never was: the service cannot tell them apart.
    if (isApiError(error) && error.status === 404)
      return { status: 'ended', reason: 'No session has this id: it does not exist, or it has ended.' };
    if (isApiError(error) && error.status === 410) {
      const detail = typeof error.detail === 'string' ? ` ${error.detail}` : '';
      return { status: 'ended', reason: `This session has ended: it failed.${detail}` };
    }
    throw error;
  }
}
