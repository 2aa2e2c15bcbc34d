/**
 * A `SessionManager` held in memory, for the tests of the HTTP layer: no runner, no process, no port bound,
 * no state file. Its sessions stay where the test puts them (`ready`, `fail`), so that a route test asserts
 * what the routes answer in each phase without waiting for an application; the queue, the capacity refusal
 * and the per-owner count follow the contract (CONTRACT §11), and its tickets are signed with a real key, so
 * that what a route hands out can be checked as an application would check it.
 *
 * The real manager's own behaviour (launching, readiness, health, durability) is tested in server/sessions/.
 */
import { CONTROL_TTL_S, type ViewerTickets } from '../server/auth/viewer-tickets.ts';
import type { CatalogProfile } from '../server/catalog/model.ts';
import { DomainError } from '../server/errors.ts';
import { extended, lifetimeOf } from '../server/sessions/lifetime.ts';
import {
  endMessage,
  exitMessage,
  readyMessage,
  startingMessage,
  waitingMessage,
} from '../server/sessions/session-messages.ts';
import { endedRecord } from '../server/sessions/ended-sessions.ts';
import { pendingRecord } from '../server/sessions/session.ts';
import {
  QueueFullError,
  type CapacityReport,
  type EndCause,
  type EndedSession,
  type SessionCounts,
  type SessionManager,
  type SessionRecord,
} from '../server/sessions/types.ts';
import type { SessionRequest } from '../server/runners/runner.ts';
import type { IssuedTicket, TicketGrant, TicketScope } from '../protocol/viewer-ticket.ts';

export interface MemoryManagerOptions {
  /** Signs the sessions' tickets; a test that checks them opens the same key (`ViewerTickets.open`). */
  tickets: ViewerTickets;
  /** Sessions that hold a GPU at once (default 1, as the HTTP tests' real manager had). */
  capacity?: number;
  /** Sessions that may wait for one (default 1). */
  queueLimit?: number;
  /** Whether a session that gets a GPU is ready at once, as one whose application answers within `readyWaitMs`. */
  readyAtOnce?: boolean;
  /** The first of the ports handed to sessions, two each (default 47000). */
  firstPort?: number;
}

interface Held {
  record: SessionRecord;
  request: SessionRequest;
  /** When it got a GPU (its lifetime counts from then). */
  startedAt?: number;
  extendedMs: number;
  /** Watch tickets issued until then are refused (the last stop of sharing). */
  watchCutoffMs?: number;
}

export class MemoryManager implements SessionManager {
  private readonly held = new Map<string, Held>();
  private readonly past: EndedSession[] = [];
  private readonly listeners: ((ended: EndedSession) => void)[] = [];
  private readonly capacityOf: number;
  private readonly queueLimit: number;
  private nextPort: number;
  private stopped = false;
  /** Watchers each stop of sharing reports dropped; a test sets it. */
  watchersDropped = 0;

  constructor(private readonly options: MemoryManagerOptions) {
    this.capacityOf = options.capacity ?? 1;
    this.queueLimit = options.queueLimit ?? 1;
    this.nextPort = options.firstPort ?? 47_000;
  }

  async start(): Promise<void> {}

  async create(request: SessionRequest): Promise<SessionRecord> {
    // The real manager's own error, which the error handler must keep out of the body.
    if (this.stopped) throw new Error('The session service is stopping.');
    const startsNow = this.queued().length === 0 && this.running().length < this.capacityOf;
    if (!startsNow && this.queued().length >= this.queueLimit) throw new QueueFullError(15);
    const record = pendingRecord(request);
    this.held.set(record.id, { record, request, extendedMs: 0 });
    this.pump();
    return { ...record };
  }

  get(id: string): SessionRecord | undefined {
    const held = this.held.get(id);
    return held && this.copy(held);
  }

  list(owner: string | null, offset: number, limit: number): { count: number; items: SessionRecord[] } {
    const mine = [...this.held.values()].filter((h) => owner === null || h.record.owner === owner);
    return { count: mine.length, items: mine.slice(offset, offset + limit).map((h) => this.copy(h)) };
  }

  async end(id: string, by?: string): Promise<void> {
    const held = this.held.get(id);
    if (!held) return;
    this.held.delete(id);
    // A failed session was recorded as past when it failed.
    if (held.record.state !== 'failed')
      this.recordEnd(held, 'deleted', endMessage(held.request, 'deleted', by), by);
    this.pump();
  }

  endedSessions(owner: string | null, offset: number, limit: number) {
    const mine = this.past.filter((e) => owner === null || e.owner === owner).reverse();
    return { count: mine.length, items: mine.slice(offset, offset + limit) };
  }

  onEnded(listener: (ended: EndedSession) => void): void {
    this.listeners.push(listener);
  }

  activeCount(owner: string): number {
    return [...this.held.values()].filter((h) => h.record.owner === owner && h.record.state !== 'failed')
      .length;
  }

  async issueTicket(
    id: string,
    scope: TicketScope,
    ttlS?: number,
    name?: string,
  ): Promise<IssuedTicket | undefined> {
    const held = this.live(id);
    if (!held) return undefined;
    // As the real manager (sessions/sharing.ts): never past the session's maximum lifetime, and a watch ticket
    // issued after the last stop of sharing.
    const began = held.startedAt ?? Date.parse(held.record.createdAt);
    const left = Math.max(
      1,
      Math.floor((began + held.request.profile.settings.maxLifetimeMs - Date.now()) / 1000),
    );
    const wanted = ttlS ?? (scope === 'control' ? CONTROL_TTL_S : left);
    const notBefore = scope === 'watch' && held.watchCutoffMs ? held.watchCutoffMs + 1 : undefined;
    return this.options.tickets.issue(id, scope, Math.min(wanted, left), notBefore, name);
  }

  async checkTicket(id: string, ticket: string): Promise<TicketGrant | null> {
    return this.live(id) ? this.options.tickets.verify(id, ticket) : null;
  }

  async filesTicket(id: string): Promise<string | undefined> {
    return this.live(id) ? this.options.tickets.filesTicket(id) : undefined;
  }

  async stopSharing(id: string): Promise<{ watchersDropped: number } | undefined> {
    const held = this.live(id);
    if (!held) return undefined;
    held.watchCutoffMs = Date.now();
    return { watchersDropped: held.record.state === 'ready' ? this.watchersDropped : 0 };
  }

  async extend(id: string, minutes: number): Promise<SessionRecord | { refused: string } | undefined> {
    const held = this.held.get(id);
    if (!held) return undefined;
    if (held.record.state !== 'ready' || held.startedAt === undefined) {
      throw new DomainError(409, 'Only a ready session can be extended; wait until it is ready.');
    }
    const next = extended(held.startedAt, held.request.profile.settings, held.extendedMs, minutes);
    if ('refused' in next) return next;
    held.extendedMs = next.extendedMs;
    return this.copy(held);
  }

  counts(): SessionCounts {
    const states = [...this.held.values()].map((h) => h.record.state);
    return {
      pending: states.filter((s) => s === 'pending').length,
      ready: states.filter((s) => s === 'ready').length,
      failed: states.filter((s) => s === 'failed').length,
      queued: this.queued().length,
      warm: 0,
    };
  }

  capacity(profiles: readonly CatalogProfile[] = []): CapacityReport {
    const ofProfile = (id: string, list: Held[]) => list.filter((h) => h.request.profile.id === id).length;
    const running = this.running();
    const queued = this.queued();
    return {
      capacity: this.capacityOf,
      running: running.length,
      warm: 0,
      queued: queued.length,
      by_profile: profiles.map((p) => ({
        profile: p.id,
        running: ofProfile(p.id, running),
        queued: ofProfile(p.id, queued),
        warm: 0,
        warm_target: 0,
      })),
    };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const held of [...this.held.values()]) {
      this.held.delete(held.record.id);
      if (held.record.state !== 'failed')
        this.recordEnd(held, 'shutdown', endMessage(held.request, 'shutdown'));
    }
  }

  /** The test's word that the application of session `id`, which holds a GPU, answers: it is ready. */
  ready(id: string): SessionRecord {
    const held = this.mustHold(id);
    if (held.startedAt === undefined) throw new Error(`Session ${id} is still waiting for a GPU.`);
    held.record.state = 'ready';
    held.record.readyAt = new Date().toISOString();
    held.record.message = readyMessage(held.request);
    return this.copy(held);
  }

  /** The test's word that session `id` failed for `reason`: it answers 410 until it is ended, and frees its GPU. */
  fail(id: string, reason?: string): SessionRecord {
    const held = this.mustHold(id);
    reason ??= exitMessage(held.request, 1, null, held.record.state !== 'ready');
    held.record.state = 'failed';
    held.record.failedAt = new Date().toISOString();
    held.record.message = reason;
    delete held.record.ports;
    this.recordEnd(held, 'failed', reason);
    this.pump();
    return this.copy(held);
  }

  /** Gives free GPUs to the sessions that wait, first in, first out, and tells each waiting one its place. */
  private pump(): void {
    for (const held of this.queued()) {
      if (this.running().length >= this.capacityOf) break;
      held.startedAt = Date.now();
      held.record.ports = { signaling: this.nextPort, media: this.nextPort + 1 };
      this.nextPort += 2;
      held.record.message = startingMessage(held.request);
      if (this.options.readyAtOnce) this.ready(held.record.id);
    }
    this.queued().forEach((held, ahead) => (held.record.message = waitingMessage(ahead)));
  }

  /** Pending or ready sessions that hold a GPU. */
  private running(): Held[] {
    return [...this.held.values()].filter((h) => h.startedAt !== undefined && h.record.state !== 'failed');
  }

  private queued(): Held[] {
    return [...this.held.values()].filter((h) => h.startedAt === undefined && h.record.state === 'pending');
  }

  private live(id: string): Held | undefined {
    const held = this.held.get(id);
    return held && held.record.state !== 'failed' ? held : undefined;
  }

  private mustHold(id: string): Held {
    const held = this.held.get(id);
    if (!held) throw new Error(`No session ${id} is held.`);
    return held;
  }

  private copy(held: Held): SessionRecord {
    const record = { ...held.record };
    if (held.record.state === 'ready' && held.startedAt !== undefined) {
      const { endsAt, latestEndAt } = lifetimeOf(
        held.startedAt,
        held.request.profile.settings,
        held.extendedMs,
      );
      record.endsAt = new Date(endsAt).toISOString();
      record.latestEndAt = new Date(latestEndAt).toISOString();
    }
    return record;
  }

  private recordEnd(held: Held, cause: EndCause, reason: string, by?: string): void {
    const { record } = held;
    const ended = endedRecord(record, { at: new Date().toISOString(), cause, reason, by });
    this.past.push(ended);
    for (const listener of this.listeners) listener(ended);
  }
}
