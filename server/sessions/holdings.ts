/**
 * What the service holds: its sessions and the queue in front of the runner's slots, and what is counted
 * over them when asked (each owner's live sessions for the per-user limit, each user's share of the GPUs):
 * a pass over a few hundred sessions at most, not counts kept in step with every change. The manager
 * schedules with these; the records the API shows are read here.
 */
import { sessionCounts } from './capacity.ts';
import { GpuShare, userGpuShare } from './fair-share.ts';
import type { Session } from './session.ts';
import type { SessionCounts, SessionRecord } from './types.ts';

export class Holdings {
  readonly sessions = new Map<string, Session>();
  /** Sessions waiting for a slot, first in first out (but for owners who hold their share). */
  readonly queue: Session[] = [];
  /** Each user's share of the GPUs: who may start while others wait. */
  readonly share: GpuShare<Session>;

  constructor(
    private readonly slots: number,
    userShare: number | null,
  ) {
    this.share = new GpuShare(userGpuShare(slots, userShare), slots, () => this.sessions.values());
  }

  add(session: Session): void {
    this.sessions.set(session.id, session);
  }

  /** A session that is gone: out of the queue and the map. */
  drop(session: Session): void {
    const place = this.queue.indexOf(session);
    if (place >= 0) this.queue.splice(place, 1);
    if (this.sessions.get(session.id) === session) this.sessions.delete(session.id);
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

  /** Sessions of `owner` pending or ready, for the per-user limit: a warm session is nobody's until it is claimed. */
  activeCount(owner: string): number {
    let count = 0;
    for (const session of this.sessions.values()) {
      const live = !session.warm && session.phase !== 'failed' && session.phase !== 'gone';
      if (live && session.record.owner === owner) count++;
    }
    return count;
  }

  /** Sessions of `owner` (every session when owner is null), oldest first, failed ones included. */
  list(owner: string | null, offset: number, limit: number): { count: number; items: SessionRecord[] } {
    const mine = [...this.sessions.values()]
      .filter((session) => !session.warm && (owner === null || session.record.owner === owner))
      .sort((a, b) => a.seq - b.seq);
    const page = mine.slice(offset, offset + limit);
    // Counted once for the page, not once per record.
    const holding = this.share.holding();
    return { count: mine.length, items: page.map((session) => this.recordOf(session, holding)) };
  }

  /**
   * The record callers get; a session held back by its owner's share says so. `holding`: the GPUs each owner
   * holds (`GpuShare.holding`), when many records are made at once.
   */
  recordOf(session: Session, holding?: ReadonlyMap<string, number>): SessionRecord {
    const record = session.toRecord(this.queue);
    const held = this.share.waiting(session, holding);
    if (held !== undefined) record.message = held;
    return record;
  }

  counts(): SessionCounts {
    return sessionCounts(this.sessions.values(), this.queue.length);
  }
}
