/**
 * What the service holds: its sessions, the queue in front of the runner's slots, and the counts kept
 * over them (each owner's live sessions for the per-user limit, each user's share of the GPUs). The
 * manager schedules with these; the records the API shows are read here.
 */
import { sessionCounts } from './capacity.ts';
import { GpuShare, userGpuShare } from './fair-share.ts';
import { OwnerCounts } from './owner-counts.ts';
import type { Session } from './session.ts';
import type { SessionCounts, SessionRecord } from './types.ts';

export class Holdings {
  readonly sessions = new Map<string, Session>();
  /** Sessions waiting for a slot, first in first out (but for owners who hold their share). */
  readonly queue: Session[] = [];
  /** Each user's share of the GPUs: who may start while others wait. */
  readonly share: GpuShare<Session>;
  /** Pending or ready, for the per-user limit: a warm session is nobody's until it is claimed. */
  private readonly owners = new OwnerCounts<Session>(
    (entry) =>
      !entry.warm &&
      entry.phase !== 'failed' &&
      entry.phase !== 'gone' &&
      this.sessions.get(entry.id) === entry,
  );

  constructor(
    private readonly slots: number,
    userShare: number | null,
  ) {
    this.share = new GpuShare(userGpuShare(slots, userShare), slots);
  }

  add(session: Session): void {
    this.sessions.set(session.id, session);
    this.update(session);
  }

  /** A session that is gone: out of the queue and the map. */
  drop(session: Session): void {
    const place = this.queue.indexOf(session);
    if (place >= 0) this.queue.splice(place, 1);
    if (this.sessions.get(session.id) === session) this.sessions.delete(session.id);
  }

  /** Counts one session afresh after a change. */
  update(session: Session): void {
    this.owners.update(session);
    this.share.update(session);
  }

  /** Counts every session afresh, after changes to many at once. */
  recount(): void {
    this.owners.recount(this.sessions.values());
    this.share.recount(this.sessions.values());
  }

  /** A session the API may show: not a warm one, which is nobody's yet. */
  visible(id: string): Session | undefined {
    const session = this.sessions.get(id);
    return session?.warm ? undefined : session;
  }

  /** Slots that no session holds. */
  freeGpus(): number {
    let held = 0;
    for (const session of this.sessions.values()) if (session.holdsGpu) held++;
    return Math.max(0, this.slots - held);
  }

  /** Queued sessions whose owners may start now: all of them without a share. */
  waiting(): number {
    return this.share.share === null ? this.queue.length : this.share.pick(this.queue, Infinity).length;
  }

  activeCount(owner: string): number {
    return this.owners.of(owner);
  }

  /** Sessions of `owner` (every session when owner is null), oldest first, failed ones included. */
  list(owner: string | null, offset: number, limit: number): { count: number; items: SessionRecord[] } {
    const mine = [...this.sessions.values()]
      .filter((session) => !session.warm && (owner === null || session.record.owner === owner))
      .sort((a, b) => a.seq - b.seq);
    const page = mine.slice(offset, offset + limit);
    // Places in the queue found in one pass, not one search of the queue per record.
    const places = page.some((session) => session.phase === 'queued')
      ? new Map(this.queue.map((session, i) => [session, i]))
      : this.queue;
    return { count: mine.length, items: page.map((session) => this.recordOf(session, places)) };
  }

  /** The record callers get; a session held back by its owner's share says so. */
  recordOf(
    session: Session,
    places: readonly Session[] | ReadonlyMap<Session, number> = this.queue,
  ): SessionRecord {
    const record = session.toRecord(places);
    const held = this.share.waiting(session);
    if (held !== undefined) record.message = held;
    return record;
  }

  counts(): SessionCounts {
    return sessionCounts(this.sessions.values(), this.queue.length);
  }
}
