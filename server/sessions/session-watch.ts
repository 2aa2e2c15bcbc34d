/**
 * What a session makes of the answers of its running application: whether it has been without a viewer
 * long enough to end, or without an answer long enough to fail. It only counts; the session acts.
 */
import type { Health } from './health-probe.ts';

/** The verdict on one answer of a ready application. */
export type Verdict = 'fine' | 'idle' | 'unresponsive';

export interface WatchLimits {
  /** No viewer this long ends the session. */
  idleTimeoutMs: number;
  /** No answer this long fails it. */
  unresponsiveMs: number;
}

export class HealthWatch {
  private idleSince: number | undefined;
  private unhealthySince: number | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  /** A viewer may come now: idle time counts from here (the session became ready, or a person claimed it). */
  restart(): void {
    this.idleSince = this.now();
    this.unhealthySince = undefined;
  }

  /**
   * Judges one answer. An application that does not report viewers is never taken for idle, nor is one that
   * `neverIdle` (a warm one, which nobody watches yet).
   */
  judge(health: Health, limits: WatchLimits, neverIdle: boolean): Verdict {
    const now = this.now();
    if (!health.ok) {
      this.unhealthySince ??= now;
      return now - this.unhealthySince >= limits.unresponsiveMs ? 'unresponsive' : 'fine';
    }
    this.unhealthySince = undefined;
    if (health.viewers === undefined || neverIdle) return 'fine';
    if (health.viewers > 0) {
      this.idleSince = undefined;
      return 'fine';
    }
    this.idleSince ??= now;
    return now - this.idleSince >= limits.idleTimeoutMs ? 'idle' : 'fine';
  }
}
