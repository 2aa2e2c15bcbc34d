/** When to try again after a lost connection: capped exponential backoff with jitter. */

/** Settings of the backoff; every one has a default. */
export interface ReconnectOptions {
  /** Delay before the first retry, in ms. */
  initialDelayMs?: number;
  /** Growth of the delay between attempts. */
  factor?: number;
  /** Upper bound of one delay, in ms. */
  maxDelayMs?: number;
  /** Fraction of the delay drawn at random (0: none, 0.5: between 50 % and 100 % of it). */
  jitter?: number;
  /** Attempts before giving up; the player then fails with a retry button. */
  maxAttempts?: number;
  /** Source of randomness in [0, 1), replaceable for tests. */
  random?: () => number;
}

/** Counts attempts and says how long to wait before the next one, or that it is time to give up. */
export class ReconnectPolicy {
  private attempts = 0;
  private readonly initialDelayMs: number;
  private readonly factor: number;
  private readonly maxDelayMs: number;
  private readonly jitter: number;
  private readonly maxAttempts: number;
  private readonly random: () => number;

  constructor(options: ReconnectOptions = {}) {
    this.initialDelayMs = options.initialDelayMs ?? 500;
    this.factor = options.factor ?? 2;
    this.maxDelayMs = options.maxDelayMs ?? 10_000;
    this.jitter = Math.min(1, Math.max(0, options.jitter ?? 0.3));
    this.maxAttempts = options.maxAttempts ?? 8;
    this.random = options.random ?? Math.random;
  }

  /** Attempts made since the last reset. */
  get attempt(): number {
    return this.attempts;
  }

  /** The next attempt's number and delay, or undefined once every attempt is used. */
  next(): { attempt: number; delayMs: number } | undefined {
    if (this.attempts >= this.maxAttempts) return undefined;
    const capped = Math.min(this.maxDelayMs, this.initialDelayMs * this.factor ** this.attempts);
    // Jitter spreads the retries of many viewers that lost the same application at once.
    const delayMs = Math.round(capped * (1 - this.jitter * this.random()));
    this.attempts += 1;
    return { attempt: this.attempts, delayMs };
  }

  /** A connection that plays again starts the count over. */
  reset(): void {
    this.attempts = 0;
  }
}
