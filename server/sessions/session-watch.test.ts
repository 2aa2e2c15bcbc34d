import { describe, expect, it } from 'vitest';
import { HealthWatch } from './session-watch.ts';

const limits = { idleTimeoutMs: 1_000, unresponsiveMs: 500 };

function watchAt(start = 0) {
  let now = start;
  const watch = new HealthWatch(() => now);
  return { watch, at: (ms: number) => (now = ms) };
}

describe('the health watch of a ready session', () => {
  it('calls it idle only after a whole idle time without a viewer', () => {
    const { watch, at } = watchAt();
    watch.restart();
    at(999);
    expect(watch.judge({ ok: true, viewers: 0 }, limits, false)).toBe('fine');
    at(1_000);
    expect(watch.judge({ ok: true, viewers: 0 }, limits, false)).toBe('idle');
  });

  it('counts idle time afresh after a viewer was seen', () => {
    const { watch, at } = watchAt();
    watch.restart();
    at(900);
    expect(watch.judge({ ok: true, viewers: 2 }, limits, false)).toBe('fine');
    at(1_500);
    expect(watch.judge({ ok: true, viewers: 0 }, limits, false)).toBe('fine');
    at(2_499);
    expect(watch.judge({ ok: true, viewers: 0 }, limits, false)).toBe('fine');
    at(2_500);
    expect(watch.judge({ ok: true, viewers: 0 }, limits, false)).toBe('idle');
  });

  it('never calls idle a warm session, or an application that does not count its viewers', () => {
    const { watch, at } = watchAt();
    watch.restart();
    at(10_000);
    expect(watch.judge({ ok: true, viewers: 0 }, limits, true)).toBe('fine');
    expect(watch.judge({ ok: true }, limits, false)).toBe('fine');
  });

  it('calls it unresponsive after answers missing for the whole limit, and forgives one answer between', () => {
    const { watch, at } = watchAt();
    watch.restart();
    at(100);
    expect(watch.judge({ ok: false }, limits, false)).toBe('fine');
    at(599);
    expect(watch.judge({ ok: false }, limits, false)).toBe('fine');
    at(650);
    expect(watch.judge({ ok: true, viewers: 1 }, limits, false)).toBe('fine');
    at(700);
    expect(watch.judge({ ok: false }, limits, false)).toBe('fine');
    at(1_200);
    expect(watch.judge({ ok: false }, limits, false)).toBe('unresponsive');
  });

  it('says when an idle end comes while no viewer is connected, and nothing while one is or nobody counts', () => {
    const { watch, at } = watchAt();
    watch.restart();
    // Nothing is known before the application has said how many viewers it has.
    expect(watch.idleEndsAt(1_000)).toBeUndefined();
    at(200);
    watch.judge({ ok: true, viewers: 0 }, limits, false);
    expect(watch.idleEndsAt(1_000)).toBe(1_000);
    watch.judge({ ok: true, viewers: 1 }, limits, false);
    expect(watch.idleEndsAt(1_000)).toBeUndefined();
    at(500);
    watch.judge({ ok: true, viewers: 0 }, limits, false);
    expect(watch.idleEndsAt(1_000)).toBe(1_500);
    watch.judge({ ok: true }, limits, false);
    expect(watch.idleEndsAt(1_000)).toBeUndefined();
    watch.judge({ ok: true, viewers: 0 }, limits, true);
    expect(watch.idleEndsAt(1_000)).toBeUndefined();
  });
});
