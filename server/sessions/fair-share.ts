/**
 * Fair use of the GPUs: one user's sessions hold at most the user's share of them at once, the capacity times
 * `STREAMGATE_USER_GPU_SHARE` (50 % by default), rounded up: 1 of 2 GPUs, 3 of 5. The user's further sessions
 * wait in the queue, where sessions of other users behind them may start first; among those that may start,
 * the queue stays first in, first out. Sessions of admins are not held back, nor, since the anonymous caller
 * of a set-up without tokens is an admin, any session of such a set-up. Warm applications are nobody's.
 */
import { OwnerCounts } from './owner-counts.ts';
import type { SessionRequest } from '../runners/runner.ts';

/** What the share looks at in a session. */
export interface SharedSession {
  readonly warm: boolean;
  readonly holdsGpu: boolean;
  readonly phase: string;
  readonly record: { readonly owner: string };
  readonly request: Pick<SessionRequest, 'admin'>;
}

/** The GPUs one user may hold: `percent` of `capacity`, rounded up; null (no share) leaves everyone free. */
export function userGpuShare(capacity: number, percent: number | null): number | null {
  if (percent === null) return null;
  return Math.max(1, Math.floor((capacity * percent + 99) / 100));
}

/** Status of a session that waits because its owner already holds the share. */
export function shareMessage(held: number, capacity: number): string {
  return (
    `Waiting: you already use your share of the GPUs (${held} of ${capacity}); ` +
    'this session starts when one of yours ends'
  );
}

/** The GPUs each owner's sessions hold, kept up to date as sessions change, and who may start among those queued. */
export class GpuShare<S extends SharedSession> {
  /** GPUs held by sessions of people held to the share. */
  private readonly holding = new OwnerCounts<S>(
    (session) => session.holdsGpu && !session.warm && !session.request.admin,
  );

  /** `share`: GPUs per user (`userGpuShare`), null for none. */
  constructor(
    readonly share: number | null,
    private readonly capacity: number,
  ) {}

  /** Counts `session` while it holds a GPU for a person held to the share. */
  update(session: S): void {
    if (this.share !== null) this.holding.update(session);
  }

  /** Counts every session afresh, after changes made to many at once (a restore, a stop). */
  recount(sessions: Iterable<S>): void {
    if (this.share !== null) this.holding.recount(sessions);
  }

  /** Whether a session of `request` may take a GPU now, as far as its owner's share goes. */
  allows(request: Pick<SessionRequest, 'owner' | 'admin'>): boolean {
    return this.share === null || request.admin === true || this.held(request.owner) < this.share;
  }

  /**
   * The sessions of `queue` to start on `free` GPUs, in queue order, passing over those whose owners hold their
   * share (counting the ones picked here). `free` may be Infinity: how many would start with GPUs to spare.
   */
  pick(queue: readonly S[], free: number): S[] {
    if (free <= 0 || queue.length === 0) return [];
    if (this.share === null) return queue.slice(0, free);
    const picked: S[] = [];
    const taking = new Map<string, number>();
    for (const session of queue) {
      if (picked.length >= free) break;
      const owner = session.record.owner;
      if (!session.request.admin) {
        const taken = taking.get(owner) ?? 0;
        if (this.held(owner) + taken >= this.share) continue;
        taking.set(owner, taken + 1);
      }
      picked.push(session);
    }
    return picked;
  }

  /** Why a queued session waits, when it is its owner's share (not a lack of GPUs) that holds it back. */
  waiting(session: S): string | undefined {
    if (
      session.phase !== 'queued' ||
      this.allows({ owner: session.record.owner, admin: session.request.admin })
    )
      return undefined;
    return shareMessage(this.held(session.record.owner), this.capacity);
  }

  private held(owner: string): number {
    return this.holding.of(owner);
  }
}
