/**
 * Who may watch a session: its viewer tickets, and the stop of its sharing. The stop is the service's order
 * to the application, `POST /sharing/stop` on its signaling port with a service ticket
 * (protocol/viewer-ticket.ts), which carries the cutoff. Only the service signs such tickets; people never
 * get one.
 */
import { request } from 'node:http';
import { CONTROL_TTL_S, type ViewerTickets } from '../auth/viewer-tickets.ts';
import { DomainError } from '../errors.ts';
import { probeHost } from './health-probe.ts';
import type { Session } from './session.ts';
import { label } from './session-messages.ts';
import type { SessionLogger } from '../runners/runner.ts';
import type { IssuedTicket, TicketScope } from '../../protocol/viewer-ticket.ts';

/** What telling an application of a stop of sharing takes. */
export interface Sharing {
  tickets: ViewerTickets;
  publicHost: string;
  logger: SessionLogger;
}

/**
 * A ticket for a viewer of a live session, for at most what is left of its lifetime; a control ticket
 * lasts CONTROL_TTL_S unless asked for less, and names `name`, who asked for it. Undefined for a session that
 * failed or is ending.
 */
export async function issueTicket(
  session: Session,
  tickets: ViewerTickets,
  scope: TicketScope,
  ttlS?: number,
  name?: string,
): Promise<IssuedTicket | undefined> {
  if (session.phase === 'failed' || session.phase === 'ending' || session.phase === 'gone') return undefined;
  const { settings } = session.request.profile;
  const began = session.startedAt ?? Date.parse(session.record.createdAt);
  const left = Math.max(1, Math.floor((began + settings.maxLifetimeMs - Date.now()) / 1000));
  const wanted = ttlS ?? (scope === 'control' ? CONTROL_TTL_S : left);
  // A watch ticket is issued after the last stop of sharing, even one of the same millisecond.
  const cutoff = session.watchCutoffMs;
  const notBefore = scope === 'watch' && cutoff ? cutoff + 1 : undefined;
  return tickets.issue(session.id, scope, Math.min(wanted, left), notBefore, name);
}

/**
 * Stops the sharing of a live session now: watch tickets issued until now are refused, and a ready
 * application drops the watchers they made (one not ready yet is told once it is). Undefined for a session
 * that is not live; a 503 when a ready application did not take the order.
 */
export async function stopSharing(
  session: Session,
  sharing: Sharing,
): Promise<{ watchersDropped: number } | undefined> {
  const live = session.phase === 'queued' || session.phase === 'starting' || session.phase === 'ready';
  if (!live) return undefined;
  session.stopSharing(Date.now());
  if (session.phase !== 'ready') return { watchersDropped: 0 };
  const dropped = await tellSharingStopped(session, sharing);
  if (dropped === null) {
    throw new DomainError(
      503,
      `${label(session.request)} did not answer the stop of sharing; try again in a moment.`,
      {
        'retry-after': '5',
      },
    );
  }
  return { watchersDropped: dropped };
}

/** Tells a ready application where its session's sharing stopped: the watchers it dropped, null unheard. */
export async function tellSharingStopped(session: Session, sharing: Sharing): Promise<number | null> {
  const { ports } = session.record;
  if (!ports || session.watchCutoffMs === undefined) return null;
  const order = await sharing.tickets.serviceTicket(session.id, session.watchCutoffMs);
  const dropped = await orderStopSharing(session.record.host ?? sharing.publicHost, ports.signaling, order);
  const fields = { sessionId: session.id, watchersDropped: dropped ?? undefined };
  if (dropped === null) sharing.logger.warn(fields, 'The application did not take the stop of sharing');
  else sharing.logger.info(fields, 'Stopped sharing: earlier watch links fail');
  return dropped;
}

/**
 * Sends the order; resolves with the watchers the application dropped, or null when it did not take it (no
 * answer within `timeoutMs`, or an answer other than 200). Never rejects.
 */
export function orderStopSharing(
  host: string,
  port: number,
  ticket: string,
  timeoutMs = 2_000,
): Promise<number | null> {
  return new Promise((resolve) => {
    const req = request({
      host: probeHost(host),
      port,
      path: '/sharing/stop',
      method: 'POST',
      headers: { authorization: `Bearer ${ticket}`, 'content-length': 0 },
      agent: false,
      timeout: timeoutMs,
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (body.length < 4_096) body += chunk;
      });
      res.on('end', () => resolve(res.statusCode === 200 ? droppedOf(body) : null));
      res.on('error', () => resolve(null));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(null));
    req.end();
  });
}

function droppedOf(body: string): number {
  try {
    const dropped = (JSON.parse(body) as { watchers_dropped?: unknown } | null)?.watchers_dropped;
    return typeof dropped === 'number' && Number.isInteger(dropped) && dropped >= 0 ? dropped : 0;
  } catch {
    return 0;
  }
}
