/**
 * Watch-only links that work without an API token (CONTRACT section 14): the session's routes and a
 * watch ticket travel in the fragment, which browsers never send to a server or in a Referer. The
 * ticket grants watching only, so nothing removed from or changed in the link can grant control.
 */
import { getSession } from '../../../lib/api/get-session';
import { createTicket } from '../../../lib/api/create-ticket';

/** What a watch link carries. */
export interface WatchLinkData {
  session: string;
  ticket: string;
  routes: unknown;
  /** Shown as the page's heading, e.g. "USD Viewer 1.2.0". */
  title?: string;
}

/** The `/watch#...` URL on `origin` for `data`. */
export function encodeWatchLink(origin: string, data: WatchLinkData): string {
  const fragment = new URLSearchParams({
    session: data.session,
    ticket: data.ticket,
    routes: JSON.stringify(data.routes),
    ...(data.title ? { title: data.title } : {}),
  });
  return `${origin}/watch#${fragment.toString()}`;
}

/** The link's data from a location's fragment, or a sentence saying what is missing. */
export function decodeWatchLink(hash: string): WatchLinkData | { problem: string } {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const session = params.get('session');
  const ticket = params.get('ticket');
  const routesText = params.get('routes');
  if (!session || !ticket || !routesText) {
    return {
      problem:
        'This watch link is incomplete: part of it was lost when it was copied. Ask the person who shared it for the whole link.',
    };
  }
  let routes: unknown;
  try {
    routes = JSON.parse(routesText);
  } catch {
    return {
      problem: 'This watch link is damaged: its stream address cannot be read. Ask for the link again.',
    };
  }
  const title = params.get('title') ?? undefined;
  return { session, ticket, routes, ...(title ? { title } : {}) };
}

/**
 * A watch link for a ready session: its current routes and a watch ticket that lasts as long as the
 * session. Null where the deployment issues no tickets.
 */
export async function createWatchLink(
  origin: string,
  sessionId: string,
  title?: string,
): Promise<string | null> {
  const session = await getSession(sessionId);
  if (session.status.condition !== 'ready' || !session.routes) {
    throw new Error('The session is not streaming yet; a watch link can be made once it is.');
  }
  const ticket = await createTicket(sessionId, 'watch');
  if (!ticket) return null;
  return encodeWatchLink(origin, {
    session: sessionId,
    ticket: ticket.ticket,
    routes: session.routes,
    title,
  });
}
