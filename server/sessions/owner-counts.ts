/**
 * Sessions per owner that meet a condition, kept up to date as sessions come, change and go, so that a
 * per-user rule costs one lookup rather than a pass over every session: the per-user limit of POST /stream
 * counts those pending or ready, the fair share of the GPUs those holding one (fair-share.ts).
 */

/** What is counted: anything with an owner. */
interface Owned {
  readonly record: { readonly owner: string };
}

export class OwnerCounts<S extends Owned> {
  private readonly byOwner = new Map<string, number>();
  /** The entries counted now: a change is counted once however often it is reported. */
  private counted = new WeakSet<S>();

  /** `counts`: whether an entry counts now. */
  constructor(private readonly counts: (entry: S) => boolean) {}

  /** Counts `entry` while it meets the condition, and stops counting it otherwise. */
  update(entry: S): void {
    const live = this.counts(entry);
    if (live === this.counted.has(entry)) return;
    if (live) this.counted.add(entry);
    else this.counted.delete(entry);
    const owner = entry.record.owner;
    const count = (this.byOwner.get(owner) ?? 0) + (live ? 1 : -1);
    if (count > 0) this.byOwner.set(owner, count);
    else this.byOwner.delete(owner);
  }

  /** Counts every entry afresh, after changes made to many at once (a restore, a stop). */
  recount(entries: Iterable<S>): void {
    this.byOwner.clear();
    this.counted = new WeakSet();
    for (const entry of entries) this.update(entry);
  }

  /** Entries of `owner` that count. */
  of(owner: string): number {
    return this.byOwner.get(owner) ?? 0;
  }
}
