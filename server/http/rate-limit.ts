/**
 * A token bucket per caller for POST /stream: starting a session starts a process, so one user must not
 * be able to fill the queue for everyone by sending requests in a loop. A bucket holds `burst` tokens
 * and gains `perMinute` of them a minute; each request takes one, and an empty bucket is a 429.
 */
import type { FastifyRequest } from 'fastify';
import { DomainError } from '../errors.ts';

/** How many requests a caller may make: `perMinute` on average, up to `burst` at once. */
export interface RateLimit {
  perMinute: number;
  burst: number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/** Buckets left full this long are forgotten, so that the map does not grow with every caller ever seen. */
const SWEEP_EVERY = 1_000;

/** Per-key token buckets; `now` is injectable so that tests need no waiting. */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private takes = 0;

  constructor(
    private readonly limit: RateLimit,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes one token for `key`; returns 0 when allowed, else the seconds until a token is back. */
  take(key: string): number {
    const now = this.now();
    if (++this.takes % SWEEP_EVERY === 0) this.sweep(now);
    const bucket = this.buckets.get(key) ?? { tokens: this.limit.burst, updatedAt: now };
    const refill = ((now - bucket.updatedAt) / 60_000) * this.limit.perMinute;
    bucket.tokens = Math.min(this.limit.burst, bucket.tokens + refill);
    bucket.updatedAt = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil(((1 - bucket.tokens) * 60) / this.limit.perMinute));
  }

  private sweep(now: number): void {
    const fullAfterMs = (this.limit.burst / this.limit.perMinute) * 60_000;
    for (const [key, bucket] of this.buckets) {
      if (now - bucket.updatedAt >= fullAfterMs) this.buckets.delete(key);
    }
  }
}

/**
 * Throws a 429 with Retry-After when the caller is over its limit. Callers are told apart by user;
 * without authentication everyone is `anonymous`, so the client address is the key then.
 */
export function enforceRateLimit(limiter: RateLimiter | null, request: FastifyRequest): void {
  if (!limiter) return;
  const user = request.principal.user;
  const key = user === 'anonymous' ? `address:${request.ip}` : `user:${user}`;
  const waitSeconds = limiter.take(key);
  if (waitSeconds > 0) {
    throw new DomainError(
      429,
      `You started too many sessions in a short time; try again in ${waitSeconds} s.`,
      { 'retry-after': String(waitSeconds) },
    );
  }
}
