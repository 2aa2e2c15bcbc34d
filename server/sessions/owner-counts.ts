/**
 * Sessions per owner that are pending or ready, kept up to date as sessions come, fail and go, so that
 * the per-user limit of POST /stream costs one lookup rather than a pass over every session.
 */
import type { Session } from './session.ts';

export class OwnerCounts {
  private readonly byOwner = new Map<string, number>();
  /** The entries counted now: a change is counted once however often it is reported. */
  private counted = new WeakSet<Session>();

  /** `entries`: the manager's sessions by id; an entry no longer there is not counted. */
  constructor(private readonly entries: ReadonlyMap<string, Session>) {}

  /** Counts `entry` while it is held, claimed and has not failed, and stops counting it otherwise. */
  update(entry: Session): void {
    // A warm session is nobody's until it is claimed.
    const live =
      !entry.warm &&
      entry.phase !== 'failed' &&
      entry.phase !== 'gone' &&
      this.entries.get(entry.id) === entry;
    if (live === this.counted.has(entry)) return;
    if (live) this.counted.add(entry);
    else this.counted.delete(entry);
    const owner = entry.record.owner;
    const count = (this.byOwner.get(owner) ?? 0) + (live ? 1 : -1);
    if (count > 0) this.byOwner.set(owner, count);
    else this.byOwner.delete(owner);
  }

  /** Counts every session afresh, after changes made to many at once (a restore, a stop). */
  recount(): void {
    this.byOwner.clear();
    this.counted = new WeakSet();
    for (const entry of this.entries.values()) this.update(entry);
  }

  /** Sessions of `owner` pending or ready. */
  of(owner: string): number {
    return this.byOwner.get(owner) ?? 0;
  }
}
