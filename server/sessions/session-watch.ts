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
  /** Whether the application's last answer counted its viewers (only then is idle time measured). */
  private counting = false;

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
    this.counting = health.viewers !== undefined && !neverIdle;
    if (health.viewers === undefined || neverIdle) return 'fine';
    if (health.viewers > 0) {
      this.idleSince = undefined;
      return 'fine';
    }
    this.idleSince ??= now;
    return now - this.idleSince >= limits.idleTimeoutMs ? 'idle' : 'fine';
  }

  /**
   * When it will be ended for having no viewer (ms since the epoch) unless one connects: known once its
   * application said it has none; undefined while it has one, or where it does not count them.
   */
  idleEndsAt(idleTimeoutMs: number): number | undefined {
    return this.counting && this.idleSince !== undefined ? this.idleSince + idleTimeoutMs : undefined;
  }
}
