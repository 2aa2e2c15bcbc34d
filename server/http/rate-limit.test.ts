import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../test-support/test-support.ts';
import { RateLimiter } from './rate-limit.ts';

describe('RateLimiter', () => {
  it('allows a burst, then one request per refill interval, per key', () => {
    let now = 0;
    const limiter = new RateLimiter({ perMinute: 30, burst: 3 }, () => now);
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a')]).toEqual([0, 0, 0]);
    // 30 a minute: one token every 2 s.
    expect(limiter.take('a')).toBe(2);
    expect(limiter.take('b')).toBe(0);
    now += 1_000;
    expect(limiter.take('a')).toBe(1);
    now += 1_000;
    expect(limiter.take('a')).toBe(0);
    expect(limiter.take('a')).toBe(2);
  });

  it('never holds more than the burst, however long a key was idle', () => {
    let now = 0;
    const limiter = new RateLimiter({ perMinute: 60, burst: 2 }, () => now);
    now += 3_600_000;
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a')]).toEqual([0, 0, 1]);
  });
});

describe('POST /stream rate limit', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      tokens: true,
      ports: { first: 28300, last: 28309 },
      config: { rateLimit: { perMinute: 1, burst: 2 } },
    });
  });
  afterAll(async () => {
    await t.close();
  });

  const post = (user: 'alice' | 'bob') =>
    t.app.inject({
      method: 'POST',
      url: '/api/stream',
      headers: bearer(user),
      // An unknown application: the limit is taken before the body is checked, and nothing starts.
      payload: { id: 'no-such-app', profile: 'default', version: 'latest' },
    });

  it('answers 429 with Retry-After past the burst, and leaves other users alone', async () => {
    expect((await post('alice')).statusCode).toBe(422);
    expect((await post('alice')).statusCode).toBe(422);
    const limited = await post('alice');
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited.json()).toEqual({ detail: expect.stringMatching(/too many sessions/) });
    expect((await post('bob')).statusCode).toBe(422);
  });

  it('does not count reads', async () => {
    for (let i = 0; i < 5; i++) {
      expect((await t.app.inject({ url: '/api/stream', headers: bearer('bob') })).statusCode).toBe(200);
    }
  });
});
