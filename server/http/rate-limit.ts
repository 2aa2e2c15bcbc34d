/**
 * A token bucket per key. POST /stream takes one per request, per caller: starting a session starts a process,
 * so one user must not be able to fill the queue for everyone by sending requests in a loop. The door takes one
 * per offer, and the auth hook one per failed authentication (auth-throttle.ts). A bucket holds `burst` tokens
 * and gains `perMinute` of them a minute; each request takes one, and an empty bucket is a 429.
 */
import type { FastifyRequest } from 'fastify';
import { DomainError } from '../errors.ts';

/** How many requests a caller may make: `perMinute` on average, up to `burst` at once. */
export interface RateLimit {
  perMinute: number;
  burst: number;
}

/** What a limiter remembers of a key between two of its requests. */
interface Bucket {
  tokens: number;
  updatedAt: number;
  /** Tokens taken since the bucket was last full. */
  taken: number;
  /** Whether the key was refused since the bucket was last full. */
  refused: boolean;
}

/** An empty bucket's answer. */
export interface Refusal {
  /** Whole seconds until a token is back, at least 1: the `Retry-After`. */
  waitSeconds: number;
  /** Tokens taken since the bucket was last full. */
  taken: number;
  /** The first refusal since the bucket was last full: once per burst, for a log line. */
  first: boolean;
}

/**
 * Keys held at once by default. A key is forgotten once its bucket is full again (it is then the same as a key
 * never seen); past this many, the key left alone longest goes first, so that callers who keep changing keys (an
 * address each) cannot make the map grow without end. A key and its bucket take about 200 bytes: 2 MB at most.
 */
export const MAX_KEYS = 10_000;

/** Per-key token buckets; `now` is injectable so that tests need no waiting. */
export class RateLimiter {
  /** In the order they were last used, oldest first: the full ones are at the front. */
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly limit: RateLimit,
    private readonly now: () => number = () => Date.now(),
    private readonly maxKeys = MAX_KEYS,
  ) {}

  /** Takes one token for `key`; returns 0 when allowed, else the seconds until a token is back. */
  take(key: string): number {
    const now = this.now();
    const bucket = this.use(key, now) ?? this.add(key, now);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      bucket.taken += 1;
      return 0;
    }
    return this.refuse(bucket).waitSeconds;
  }

  /**
   * Whether `key` would be refused, without taking a token: null while its bucket holds one (a key never seen, or
   * forgotten, holds `burst`), else the refusal.
   */
  check(key: string): Refusal | null {
    const bucket = this.use(key, this.now());
    return !bucket || bucket.tokens >= 1 ? null : this.refuse(bucket);
  }

  /** How many keys are remembered. */
  get size(): number {
    return this.buckets.size;
  }

  /** The key's bucket filled up to `now` and moved to the back, if it is remembered. */
  private use(key: string, now: number): Bucket | undefined {
    this.forgetFull(now);
    const bucket = this.buckets.get(key);
    if (!bucket) return undefined;
    this.buckets.delete(key);
    this.buckets.set(key, bucket);
    bucket.tokens = this.fill(bucket, now);
    bucket.updatedAt = now;
    // Full again: a burst is over, and the next refusal starts another.
    if (bucket.tokens >= this.limit.burst) {
      bucket.taken = 0;
      bucket.refused = false;
    }
    return bucket;
  }

  /** A full bucket for a key not remembered, making room for it first. */
  private add(key: string, now: number): Bucket {
    if (this.buckets.size >= this.maxKeys) {
      const oldest = this.buckets.keys().next();
      if (!oldest.done) this.buckets.delete(oldest.value);
    }
    const bucket = { tokens: this.limit.burst, updatedAt: now, taken: 0, refused: false };
    this.buckets.set(key, bucket);
    return bucket;
  }

  private refuse(bucket: Bucket): Refusal {
    const first = !bucket.refused;
    bucket.refused = true;
    const waitSeconds = Math.max(1, Math.ceil(((1 - bucket.tokens) * 60) / this.limit.perMinute));
    return { waitSeconds, taken: bucket.taken, first };
  }

  /** Its tokens at `now`; never more than the burst, and a clock set back takes none away. */
  private fill(bucket: Bucket, now: number): number {
    const refill = (Math.max(0, now - bucket.updatedAt) / 60_000) * this.limit.perMinute;
    return Math.min(this.limit.burst, bucket.tokens + refill);
  }

  /**
   * Forgets the buckets at the front that are full again, and stops at the first that is not, so that a call
   * costs little. A full bucket behind one that is not goes at most `burst / perMinute` minutes after its own last
   * use: every bucket in front of it was last used before it.
   */
  private forgetFull(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (this.fill(bucket, now) < this.limit.burst) return;
      this.buckets.delete(key);
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
