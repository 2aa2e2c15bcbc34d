/** The stream's bandwidth as the display host's capture spends it (capture.ts). */

/** A bucket of bytes a second: what the encoder sends is spent; frames wait while it is overdrawn. */
export class ByteBudget {
  private tokens: number;

  /** `rate` bytes a second, and up to `burstSeconds` of it saved while little is sent. */
  constructor(
    public rate: number,
    private readonly burstSeconds = 1,
    private at = performance.now(),
  ) {
    this.tokens = rate * burstSeconds;
  }

  spend(bytes: number, now = performance.now()): void {
    this.refill(now);
    this.tokens -= bytes;
  }

  /** Milliseconds until the budget is no longer overdrawn; 0 when a frame may go now. */
  waitMs(now = performance.now()): number {
    this.refill(now);
    return this.tokens >= 0 ? 0 : (-this.tokens / this.rate) * 1000;
  }

  private refill(now: number): void {
    this.tokens = Math.min(this.rate * this.burstSeconds, this.tokens + ((now - this.at) / 1000) * this.rate);
    this.at = now;
  }
}
