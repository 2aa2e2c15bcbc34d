/**
 * A viewer's `resize` events, at most one a second. Each resize that changes the size restarts the encoder
 * (a new ffmpeg at the new size): a window dragged to a new size sends dozens, and a hostile viewer thousands
 * (3,000 of them once made 780 zombie encoders and failed the session). The first resize after a quiet second
 * is applied at once, so that a viewer who resizes once sees it without delay; the ones that come within the
 * second after it wait, and only the last of them is applied, when the second is over.
 */

/** The least time between two encoder restarts for a resize. */
export const RESIZE_INTERVAL_MS = 1_000;

/** Applies a size; returns whether anything changed (a restart), which starts the interval. */
export type ApplySize = (width: number, height: number) => boolean;

export class ResizeThrottle {
  private waiting: NodeJS.Timeout | null = null;
  private next: { width: number; height: number } | null = null;
  private closed = false;

  constructor(
    private readonly apply: ApplySize,
    private readonly intervalMs = RESIZE_INTERVAL_MS,
  ) {}

  /** A viewer asked for this size: applied now, or at the end of the interval if no later one comes. */
  resize(width: number, height: number): void {
    if (this.closed) return;
    if (this.waiting) {
      this.next = { width, height };
      return;
    }
    this.run(width, height);
  }

  /** Forgets a waiting size and stops the timer (the application is closing). */
  close(): void {
    this.closed = true;
    this.next = null;
    if (this.waiting) clearTimeout(this.waiting);
    this.waiting = null;
  }

  private run(width: number, height: number): void {
    if (!this.apply(width, height)) return;
    this.waiting = setTimeout(() => this.intervalOver(), this.intervalMs);
    // A size that waits is no reason for the process to stay.
    this.waiting.unref();
  }

  private intervalOver(): void {
    this.waiting = null;
    const next = this.next;
    this.next = null;
    if (next) this.run(next.width, next.height);
  }
}
