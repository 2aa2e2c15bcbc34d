/**
 * Fair use of the GPUs: one user's sessions hold at most the user's share of them at once, the capacity times
 * `STREAMGATE_USER_GPU_SHARE` (50 % by default), rounded up: 1 of 2 GPUs, 3 of 5. The user's further sessions
 * wait in the queue, where sessions of other users behind them may start first; among those that may start,
 * the queue stays first in, first out. Sessions of admins are not held back, nor, since the anonymous caller
 * of a set-up without tokens is an admin, any session of such a set-up. Warm applications are nobody's.
 */
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

/** Who may start among those queued, from the GPUs each owner's sessions hold now (counted when asked). */
export class GpuShare<S extends SharedSession> {
  /** `share`: GPUs per user (`userGpuShare`), null for none; `sessions`: every session the service holds. */
  constructor(
    readonly share: number | null,
    private readonly capacity: number,
    private readonly sessions: () => Iterable<S>,
  ) {}

  /** Whether a session of `request` may take a GPU now, as far as its owner's share goes. */
  allows(request: Pick<SessionRequest, 'owner' | 'admin'>): boolean {
    if (this.share === null || request.admin === true) return true;
    return (this.holding().get(request.owner) ?? 0) < this.share;
  }

  /**
   * The sessions of `queue` to start on `free` GPUs, in queue order, passing over those whose owners hold their
   * share (counting the ones picked here). `free` may be Infinity: how many would start with GPUs to spare.
   */
  pick(queue: readonly S[], free: number): S[] {
    if (free <= 0 || queue.length === 0) return [];
    const share = this.share;
    if (share === null) return queue.slice(0, free);
    const picked: S[] = [];
    const holding = this.holding();
    for (const session of queue) {
      if (picked.length >= free) break;
      const owner = session.record.owner;
      if (!session.request.admin) {
        const held = holding.get(owner) ?? 0;
        if (held >= share) continue;
        holding.set(owner, held + 1);
      }
      picked.push(session);
    }
    return picked;
  }

  /**
   * Why a queued session waits, when it is its owner's share (not a lack of GPUs) that holds it back.
   * `holding`: what `holding()` counted, when a list asks for many sessions at once.
   */
  waiting(session: S, holding?: ReadonlyMap<string, number>): string | undefined {
    if (session.phase !== 'queued' || this.share === null || session.request.admin) return undefined;
    const held = (holding ?? this.holding()).get(session.record.owner) ?? 0;
    return held < this.share ? undefined : shareMessage(held, this.capacity);
  }

  /** GPUs held per person held to the share, counted now: one pass over the sessions, a few hundred at most. */
  holding(): Map<string, number> {
    const byOwner = new Map<string, number>();
    if (this.share === null) return byOwner;
    for (const session of this.sessions()) {
      if (!session.holdsGpu || session.warm || session.request.admin) continue;
      const owner = session.record.owner;
      byOwner.set(owner, (byOwner.get(owner) ?? 0) + 1);
    }
    return byOwner;
  }
}
