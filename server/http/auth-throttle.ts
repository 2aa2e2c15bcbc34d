/**
 * Slows down the guessing of bearer tokens (issue 33): every failed authentication takes a token from the bucket
 * of the client's address (rate-limit.ts). Once it is empty, every request of that address that carries a
 * credential is answered 429 with `Retry-After` before the credential is looked at, so that a guesser learns
 * nothing while refused. A right token costs nothing, and a request without a credential guesses nothing and
 * is not counted.
 */
import type { FastifyBaseLogger } from 'fastify';
import { DomainError } from '../errors.ts';
import { MAX_KEYS, RateLimiter, type RateLimit } from './rate-limit.ts';

/**
 * Failed authentications an address may make at once: a person who mistypes a token a few times, or a script
 * that tries a revoked one a few times, is never slowed.
 */
export const FAILED_AUTH_BURST = 20;
/**
 * Failed authentications given back each second: a guesser gets one guess a second (86,400 a day), where it had
 * about 900 (500 answered in 565 ms), and a refused address is full again 20 s after its last failure.
 */
export const FAILED_AUTH_PER_SECOND = 1;
/** Both, as the limiter takes them. */
export const FAILED_AUTH_LIMIT: RateLimit = {
  burst: FAILED_AUTH_BURST,
  perMinute: FAILED_AUTH_PER_SECOND * 60,
};
/**
 * Addresses remembered at once. An address is forgotten once its bucket is full again (20 s after its last
 * failure); past this many, the one left alone longest goes first.
 */
export const MAX_TRACKED_ADDRESSES = MAX_KEYS;

/** The failed authentications of each client address, and the refusal of an address over its budget. */
export class AuthThrottle {
  private readonly limiter: RateLimiter;

  /** `now` is injectable so that tests need no waiting. */
  constructor(now?: () => number, maxAddresses = MAX_TRACKED_ADDRESSES) {
    this.limiter = new RateLimiter(FAILED_AUTH_LIMIT, now, maxAddresses);
  }

  /**
   * The 429 for `address` while it is over its budget, else null; it takes nothing from the budget. The first
   * refusal of a burst is logged, naming the address and its failures; the next ones of that burst are not.
   */
  refusal(address: string, log: FastifyBaseLogger): DomainError | null {
    const refused = this.limiter.check(address);
    if (!refused) return null;
    const { waitSeconds, taken: failures, first } = refused;
    if (first) {
      log.warn(
        { address, failures, retryAfter: waitSeconds },
        'too many failed authentications from one address: its credentials are refused until it slows down',
      );
    }
    return new DomainError(
      429,
      `Too many wrong tokens came from your address; try again in ${waitSeconds} s.`,
      { 'retry-after': String(waitSeconds) },
    );
  }

  /** Counts a failed authentication of `address` against its budget. */
  failed(address: string): void {
    this.limiter.take(address);
  }

  /** How many addresses are remembered. */
  get size(): number {
    return this.limiter.size;
  }
}
