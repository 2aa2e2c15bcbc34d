import type { FastifyBaseLogger } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../test-support/test-support.ts';
import { DomainError } from '../errors.ts';
import { AuthThrottle, FAILED_AUTH_BURST } from './auth-throttle.ts';

/** A throttle on a clock the test moves, and a logger that records its warnings. */
function throttleOnFakeTime(maxAddresses?: number) {
  const clock = { now: 0 };
  const throttle = new AuthThrottle(() => clock.now, maxAddresses);
  const warn = vi.fn();
  const log = { warn } as unknown as FastifyBaseLogger;
  /** What the hook does with a wrong token: the 429 while refused, else counts it (null: the hook's 403). */
  const guess = (address: string): DomainError | null => {
    const refused = throttle.refusal(address, log);
    if (!refused) throttle.failed(address);
    return refused;
  };
  return { clock, throttle, warn, log, guess };
}

describe('AuthThrottle', () => {
  it('allows a burst of failures, then refuses that address with 429 and Retry-After, and no other', () => {
    const { throttle, log, guess } = throttleOnFakeTime();
    for (let i = 0; i < FAILED_AUTH_BURST; i++) expect(guess('10.0.0.1')).toBeNull();
    const refused = guess('10.0.0.1');
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused?.statusCode).toBe(429);
    expect(refused?.headers).toEqual({ 'retry-after': '1' });
    expect(refused?.detail).toBe('Too many wrong tokens came from your address; try again in 1 s.');
    expect(throttle.refusal('10.0.0.2', log)).toBeNull();
  });

  it('never slows a person who mistypes, and takes nothing for a request it lets through', () => {
    const { throttle, log, guess } = throttleOnFakeTime();
    expect([guess('10.0.0.1'), guess('10.0.0.1')]).toEqual([null, null]);
    // The right token's requests ask only whether the address is refused: any number of them costs nothing.
    for (let i = 0; i < 1_000; i++) expect(throttle.refusal('10.0.0.1', log)).toBeNull();
    for (let i = 2; i < FAILED_AUTH_BURST; i++) expect(guess('10.0.0.1')).toBeNull();
    expect(guess('10.0.0.1')?.statusCode).toBe(429);
  });

  it('gives back one failure a second, and the whole burst once the address stops', () => {
    const { clock, guess } = throttleOnFakeTime();
    for (let i = 0; i < FAILED_AUTH_BURST; i++) guess('10.0.0.1');
    expect(guess('10.0.0.1')?.statusCode).toBe(429);
    clock.now += 999;
    expect(guess('10.0.0.1')?.statusCode).toBe(429);
    clock.now += 1;
    expect(guess('10.0.0.1')).toBeNull();
    expect(guess('10.0.0.1')?.statusCode).toBe(429);
    clock.now += FAILED_AUTH_BURST * 1_000;
    for (let i = 0; i < FAILED_AUTH_BURST; i++) expect(guess('10.0.0.1')).toBeNull();
    expect(guess('10.0.0.1')?.statusCode).toBe(429);
  });

  it('logs one warning a burst, naming the address and its failures, however long the burst lasts', () => {
    const { clock, warn, guess } = throttleOnFakeTime();
    for (let i = 0; i < FAILED_AUTH_BURST + 30; i++) guess('10.0.0.1');
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn).toHaveBeenCalledWith(
      { address: '10.0.0.1', failures: FAILED_AUTH_BURST, retryAfter: 1 },
      expect.stringMatching(/too many failed authentications/),
    );
    // A guesser that keeps to the refill for a minute is still the same burst.
    for (let s = 0; s < 60; s++) {
      clock.now += 1_000;
      for (let i = 0; i < 5; i++) guess('10.0.0.1');
    }
    expect(warn).toHaveBeenCalledTimes(1);
    // Full again after 20 quiet seconds: the next refusal starts another burst, and is logged.
    clock.now += FAILED_AUTH_BURST * 1_000;
    for (let i = 0; i <= FAILED_AUTH_BURST; i++) guess('10.0.0.1');
    expect(warn).toHaveBeenCalledTimes(2);
  });

  it('forgets an address once its bucket is full again, and remembers only the addresses that failed', () => {
    const { clock, throttle, log, guess } = throttleOnFakeTime();
    for (let i = 0; i < 100; i++) expect(throttle.refusal(`10.1.0.${i}`, log)).toBeNull();
    expect(throttle.size).toBe(0);
    for (let i = 0; i < FAILED_AUTH_BURST; i++) guess('10.0.0.1');
    guess('10.0.0.2');
    expect(throttle.size).toBe(2);
    // A second later 10.0.0.2 (one failure) is full again, but it goes behind 10.0.0.1, emptied, 20 s later.
    clock.now += 1_000;
    throttle.refusal('10.9.9.9', log);
    expect(throttle.size).toBe(2);
    clock.now += (FAILED_AUTH_BURST - 1) * 1_000;
    throttle.refusal('10.9.9.9', log);
    expect(throttle.size).toBe(0);
  });

  it('remembers at most its cap of addresses, forgetting the one left alone longest', () => {
    const { throttle, guess } = throttleOnFakeTime(3);
    for (let i = 0; i < FAILED_AUTH_BURST; i++) guess('10.0.0.1');
    guess('10.0.0.2');
    guess('10.0.0.3');
    // Asking again keeps 10.0.0.1 in mind: 10.0.0.2 is now the one left alone longest, and goes first.
    expect(guess('10.0.0.1')?.statusCode).toBe(429);
    guess('10.0.0.4');
    expect(throttle.size).toBe(3);
    expect(guess('10.0.0.1')?.statusCode).toBe(429);
    // Three new addresses push it out, and its refusal with it.
    for (const address of ['10.0.0.5', '10.0.0.6', '10.0.0.7']) guess(address);
    expect(throttle.size).toBe(3);
    expect(guess('10.0.0.1')).toBeNull();
  });
});

// This file's ports: 28470-28479 (no session is started).
describe('failed authentications through the app', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ tokens: true, ports: { first: 28470, last: 28479 } });
  });
  afterAll(async () => {
    await t.close();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const apps = (remoteAddress: string, headers: Record<string, string>) =>
    t.app.inject({ url: '/api/cfg/apps', remoteAddress, headers });
  const wrong = { authorization: 'Bearer not-a-token' };

  it('refuses a guessing address with 429 and Retry-After, and no one else', async () => {
    // Only the clock is fake: the app's own timers run as ever.
    vi.useFakeTimers({ toFake: ['Date'] });
    const answers = [];
    for (let i = 0; i < 50; i++) answers.push(await apps('192.0.2.1', wrong));
    expect(answers.map((a) => a.statusCode)).toEqual([
      ...Array<number>(FAILED_AUTH_BURST).fill(403),
      ...Array<number>(50 - FAILED_AUTH_BURST).fill(429),
    ]);
    const fiftieth = answers[49];
    expect(fiftieth?.statusCode).toBe(429);
    expect(fiftieth?.headers['retry-after']).toBe('1');
    expect(fiftieth?.json()).toEqual({ detail: expect.stringMatching(/^Too many wrong tokens .* 1 s\.$/) });

    expect((await apps('192.0.2.2', bearer('alice'))).statusCode).toBe(200);
    // No credential is no guess: the contract's 403, even from the refused address.
    expect((await apps('192.0.2.1', {})).json()).toEqual({ detail: 'Not authenticated' });
    // The right token from the refused address is not looked at while it is refused...
    expect((await apps('192.0.2.1', bearer('alice'))).statusCode).toBe(429);
    vi.advanceTimersByTime(Number(fiftieth?.headers['retry-after']) * 1_000);
    // ...and passes once Retry-After has passed, taking nothing from what came back.
    expect((await apps('192.0.2.1', bearer('alice'))).statusCode).toBe(200);
    expect((await apps('192.0.2.1', bearer('alice'))).statusCode).toBe(200);
    expect((await apps('192.0.2.1', wrong)).statusCode).toBe(403);
    expect((await apps('192.0.2.1', wrong)).statusCode).toBe(429);
  });
});

// This file's ports: 28480-28489 (no session is started).
describe('failed authentications behind a trusted reverse proxy', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      tokens: true,
      ports: { first: 28480, last: 28489 },
      config: { trustProxy: ['127.0.0.1'] },
    });
  });
  afterAll(async () => {
    await t.close();
  });

  const apps = (remoteAddress: string, forwardedFor: string, token: Record<string, string>) =>
    t.app.inject({
      url: '/api/cfg/apps',
      remoteAddress,
      headers: { ...token, 'x-forwarded-for': forwardedFor },
    });

  it('counts each client the proxy names, not the proxy, and believes no one else’s forwarding', async () => {
    const wrong = { authorization: 'Bearer not-a-token' };
    for (let i = 0; i < FAILED_AUTH_BURST; i++) await apps('127.0.0.1', '198.51.100.7', wrong);
    expect((await apps('127.0.0.1', '198.51.100.7', wrong)).statusCode).toBe(429);
    // Another person behind the same proxy is not slowed by the guesser.
    expect((await apps('127.0.0.1', '198.51.100.8', bearer('alice'))).statusCode).toBe(200);
    // A client that is not the proxy cannot choose its address by the header.
    for (let i = 0; i < FAILED_AUTH_BURST; i++) await apps('192.0.2.9', `203.0.113.${i}`, wrong);
    expect((await apps('192.0.2.9', '203.0.113.200', wrong)).statusCode).toBe(429);
  });
});
