/**
 * Who may connect to an application, and how many (CONTRACT section 14), shared by the sample application and
 * the display host through stream-server.ts: tickets are checked here, control tickets serve one connection,
 * watch tickets stop working when the service stops the sharing, watchers leave a place for a controller, and
 * the ticket of a viewer an owner removed connects nobody again (protocol/people.ts).
 * The signaling port (signaling.ts) asks; the stream server makes the viewers.
 */
import {
  CONTROL_TICKET_MAX_S,
  verifyServiceTicket,
  verifyTicket,
  type TicketScope,
} from '../../protocol/viewer-ticket.ts';
import { HttpError, unauthorized } from './signaling.ts';

/** A place a viewer holds from its admission until it leaves (or its offer fails). */
export interface Admission {
  readonly scope: TicketScope;
  /** The person its ticket names (a control ticket's), for the people of the session. */
  readonly name?: string;
  /** The viewer is made: `close` ends it, at once if its ticket was revoked meanwhile. */
  attach(close: () => void): void;
  /** The viewer is gone: its place is free. Once; later calls do nothing. */
  leave(): void;
  /** The offer failed before a viewer was made: its place is free and its ticket may be used again. */
  refund(): void;
  /**
   * Its viewer was removed by an owner: the ticket it came with connects nobody from now on, until it expires.
   * Viewers already connected with it stay.
   */
  refuseTicket(): void;
}

export interface ViewerAccessOptions {
  sessionId: string;
  /** Null: the application runs alone and takes anyone, as a controller. */
  secret: Uint8Array | null;
  /** Viewers at once; watchers may take all but one place, which is kept for a controller. */
  maxViewers: number;
  /** The clock (ms since the epoch), for tests. */
  now?: () => number;
}

/**
 * Tickets of removed viewers remembered at most: past this, the one that expires first is forgotten. Each is
 * an owner's deliberate act, so this many is far more than any session sees, and bounds what a runaway loop costs.
 */
export const MAX_REFUSED_TICKETS = 1000;

/** What a person connecting with a ticket of a removed viewer reads. */
export const REFUSED_TICKET_MESSAGE =
  "The session's owner removed you; this link no longer connects to the session. Ask the owner for a new one.";

interface Held {
  scope: TicketScope;
  /** Made with a watch ticket issued then (ms): stopping the sharing drops it. */
  watchTicketMs?: number;
  close?: () => void;
}

export class ViewerAccess {
  private readonly now: () => number;
  /** Ids of spent single-use tickets (control and service ones), each kept until it can no longer be used. */
  private readonly spent = new Map<string, number>();
  /** Ids of the tickets of removed viewers, each kept until it expires (ms); at most MAX_REFUSED_TICKETS. */
  private readonly refused = new Map<string, number>();
  /** Watch tickets issued at or before this (ms) are refused; -Infinity until the service stops the sharing. */
  private watchCutoffMs = -Infinity;
  private readonly held = new Set<Held>();

  constructor(private readonly options: ViewerAccessOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The most watchers at once: all places but the one kept for a controller. */
  get maxWatchers(): number {
    return Math.max(0, this.options.maxViewers - 1);
  }

  /** Viewers connected or connecting. */
  get viewers(): number {
    return this.held.size;
  }

  /**
   * What `ticket` may do without spending it (GET /health, deleting a viewer): its scope, or null when it is
   * invalid, expired or revoked. A spent control ticket still answers here: it is the key of its own viewer.
   */
  async check(ticket: string | null): Promise<TicketScope | null> {
    const { secret, sessionId } = this.options;
    if (!secret) return 'control';
    if (ticket === null) return null;
    const now = this.now();
    const grant = await verifyTicket(secret, sessionId, ticket, now);
    if (!grant || this.stale(grant.scope, grant.issuedMs, now)) return null;
    return grant.scope;
  }

  /**
   * Admits a viewer for POST /whep acting with `scope` (its ticket's, or less): spends a control ticket, and
   * holds a place. Throws 401 for a ticket that is not good (or no longer), 503 with a sentence when full.
   */
  async admit(ticket: string | null, scope: TicketScope): Promise<Admission> {
    const { secret, sessionId } = this.options;
    const now = this.now();
    this.forgetExpired(now);
    const grant = secret && ticket !== null ? await verifyTicket(secret, sessionId, ticket, now) : null;
    if (secret && (!grant || this.stale(grant.scope, grant.issuedMs, now))) throw unauthorized();
    // Said in words, unlike a bad ticket: the ticket is good, and its holder should know why it no longer works.
    if (grant && this.refused.has(grant.jti)) throw new HttpError(403, REFUSED_TICKET_MESSAGE);
    // From here on nothing waits: the checks and the spending below cannot interleave with another offer's.
    if (grant?.scope === 'control') {
      if (this.spent.has(grant.jti)) throw unauthorized();
      this.spent.set(
        grant.jti,
        Math.min(grant.expiresAt * 1000, grant.issuedMs + CONTROL_TICKET_MAX_S * 1000),
      );
    }
    const refuse = (error: HttpError) => {
      if (grant?.scope === 'control') this.spent.delete(grant.jti);
      return error;
    };
    const { maxViewers } = this.options;
    if (this.held.size >= maxViewers) {
      throw refuse(
        new HttpError(
          503,
          `This session already has ${maxViewers} ${maxViewers === 1 ? 'viewer' : 'viewers'}, its most; ` +
            'try again when one leaves.',
          { 'Retry-After': '10' },
        ),
      );
    }
    if (scope === 'watch' && this.watchers() >= this.maxWatchers) {
      const most = this.maxWatchers;
      throw refuse(
        new HttpError(
          503,
          most === 0
            ? 'This session takes one viewer, who controls it; it cannot be watched.'
            : `This session already has ${most} ${most === 1 ? 'watcher' : 'watchers'}, its most: its last place ` +
                'is kept for its owner. Try again when one leaves.',
          { 'Retry-After': '10' },
        ),
      );
    }
    const held: Held = { scope, ...(grant?.scope === 'watch' ? { watchTicketMs: grant.issuedMs } : {}) };
    this.held.add(held);
    const leave = () => void this.held.delete(held);
    return {
      scope,
      ...(grant?.name !== undefined ? { name: grant.name } : {}),
      attach: (close) => {
        held.close = close;
        if (!this.held.has(held)) close();
      },
      leave,
      refund: () => {
        leave();
        if (grant?.scope === 'control') this.spent.delete(grant.jti);
      },
      refuseTicket: () => {
        if (grant) this.refuse(grant.jti, grant.expiresAt * 1000);
      },
    };
  }

  /** Refuses ticket `jti` until `until` (ms), forgetting the one that expires first past MAX_REFUSED_TICKETS. */
  private refuse(jti: string, until: number): void {
    this.refused.set(jti, until);
    if (this.refused.size <= MAX_REFUSED_TICKETS) return;
    let first: [string, number] | undefined;
    for (const entry of this.refused) if (!first || entry[1] < first[1]) first = entry;
    if (first) this.refused.delete(first[0]);
  }

  /**
   * The service stops the sharing (`POST /sharing/stop` with a service ticket): watch tickets issued until the
   * ticket's cutoff are refused from now on and the viewers they made are dropped. Returns how many were
   * dropped, or null when the ticket is not the service's (or was used already). A later cutoff wins.
   */
  async stopSharing(ticket: string | null): Promise<number | null> {
    const { secret, sessionId } = this.options;
    if (!secret || ticket === null) return null;
    const now = this.now();
    this.forgetExpired(now);
    const order = await verifyServiceTicket(secret, sessionId, ticket, now);
    if (!order || this.spent.has(order.jti)) return null;
    this.spent.set(order.jti, order.expiresAt * 1000);
    this.watchCutoffMs = Math.max(this.watchCutoffMs, order.watchCutoffMs);
    let dropped = 0;
    for (const held of [...this.held]) {
      if (held.watchTicketMs === undefined || held.watchTicketMs > this.watchCutoffMs) continue;
      // A viewer still connecting is closed when it is attached.
      this.held.delete(held);
      held.close?.();
      dropped++;
    }
    return dropped;
  }

  private watchers(): number {
    let count = 0;
    for (const held of this.held) if (held.scope === 'watch') count++;
    return count;
  }

  /** A watch ticket issued before the sharing stopped, or a control ticket older than a control ticket may be. */
  private stale(scope: TicketScope, issuedMs: number, now: number): boolean {
    if (scope === 'watch') return issuedMs <= this.watchCutoffMs;
    return now - issuedMs > CONTROL_TICKET_MAX_S * 1000;
  }

  private forgetExpired(now: number): void {
    for (const [jti, until] of this.spent) if (until <= now) this.spent.delete(jti);
    for (const [jti, until] of this.refused) if (until <= now) this.refused.delete(jti);
  }
}
