/**
 * What a player needs from the streaming API to connect to one session: a ticket with the TURN relays that came
 * with it, and where the service's door is (CONTRACT §21).
 */
import type { DoorOptions, ViewerTicket } from '../../player';
import { getConfig } from '../config';
import { createTicket } from './create-ticket';

/** A viewer ticket for `sessionId` and its relays; undefined where the deployment issues no tickets. */
export async function viewerTicket(
  sessionId: string,
  scope: 'control' | 'watch',
): Promise<ViewerTicket | undefined> {
  const issued = await createTicket(sessionId, scope);
  if (!issued) return undefined;
  return issued.ice_servers
    ? { ticket: issued.ticket, iceServers: issued.ice_servers }
    : { ticket: issued.ticket };
}

/** The door's WHEP endpoint for `sessionId` on the streaming API, with the configured signaling mode. */
export function doorOf(sessionId: string): DoorOptions {
  const { streamUrl, signaling } = getConfig();
  const base = new URL(streamUrl.replace(/\/+$/, '') + '/', globalThis.location?.href ?? 'http://localhost/');
  return { mode: signaling, url: new URL(`stream/${encodeURIComponent(sessionId)}/whep`, base).toString() };
}
