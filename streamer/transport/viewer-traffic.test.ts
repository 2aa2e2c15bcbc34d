import { describe, expect, it } from 'vitest';
import {
  INPUT_RATE,
  MESSAGES_RATE,
  noDrops,
  TokenBucket,
  ViewerTraffic,
  type DropCounts,
} from './viewer-traffic.ts';

/** A clock the test moves by hand. */
function manualClock() {
  const clock = { ms: 0, now: () => clock.ms };
  return clock;
}

/** Traffic of one viewer on `clock`, and the drops it counted. */
function traffic(clock: { now: () => number }) {
  const dropped: DropCounts = noDrops();
  return { dropped, viewer: new ViewerTraffic((why) => dropped[why]++, clock.now) };
}

const move = JSON.stringify({ type: 'pointermove', x: 1, y: 2, buttons: 0 });
const query = JSON.stringify({ event_type: 'loadingStateQuery', payload: {} });

describe('TokenBucket', () => {
  it('gives its burst at once, then its rate', () => {
    const clock = manualClock();
    const bucket = new TokenBucket({ perSecond: 10, burst: 3 }, clock.now);
    expect([bucket.take(), bucket.take(), bucket.take(), bucket.take()]).toEqual([true, true, true, false]);
    clock.ms += 99;
    expect(bucket.take()).toBe(false);
    clock.ms += 1;
    expect(bucket.take()).toBe(true);
    // A long quiet time fills it to its burst, no more.
    clock.ms += 60_000;
    let taken = 0;
    while (bucket.take()) taken++;
    expect(taken).toBe(3);
  });
});

describe('ViewerTraffic', () => {
  it('hands well-formed events on', () => {
    const { viewer, dropped } = traffic(manualClock());
    expect(viewer.inputEvent(move)).toEqual({ type: 'pointermove', x: 1, y: 2, buttons: 0 });
    expect(viewer.appMessage(query)).toEqual({ event_type: 'loadingStateQuery', payload: {} });
    expect(dropped).toEqual(noDrops());
  });

  it('drops and counts malformed messages on either channel, without taking a token', () => {
    const { viewer, dropped } = traffic(manualClock());
    for (let i = 0; i < 5_000; i++) {
      expect(viewer.inputEvent('{"type":"wheel","x":1,"y":1,"deltaX":0,"deltaY":1e400}')).toBeNull();
      expect(viewer.appMessage('not json')).toBeNull();
    }
    expect(dropped).toEqual({ ...noDrops(), malformedInput: 5_000, malformedMessages: 5_000 });
    expect(viewer.inputEvent(move)).not.toBeNull();
    expect(viewer.appMessage(query)).not.toBeNull();
  });

  it('passes a flood of input up to its burst and rate, and counts the rest', () => {
    const clock = manualClock();
    const { viewer, dropped } = traffic(clock);
    let passed = 0;
    // 100,000 events over two seconds.
    for (let i = 0; i < 100_000; i++) {
      clock.ms = i / 50;
      if (viewer.inputEvent(move)) passed++;
    }
    expect(passed).toBe(INPUT_RATE.burst + 2 * INPUT_RATE.perSecond - 1);
    expect(dropped.inputOverRate).toBe(100_000 - passed);
    // The other channel has its own bucket.
    expect(viewer.appMessage(query)).not.toBeNull();
    clock.ms += 1_000;
    expect(viewer.inputEvent(move)).not.toBeNull();
  });

  it('passes messages up to their own, lower, burst and rate', () => {
    const clock = manualClock();
    const { viewer, dropped } = traffic(clock);
    let passed = 0;
    for (let i = 0; i < 1_000; i++) if (viewer.appMessage(query)) passed++;
    expect(passed).toBe(MESSAGES_RATE.burst);
    expect(dropped.messagesOverRate).toBe(1_000 - MESSAGES_RATE.burst);
    clock.ms += 1_000;
    passed = 0;
    for (let i = 0; i < 1_000; i++) if (viewer.appMessage(query)) passed++;
    expect(passed).toBe(MESSAGES_RATE.perSecond);
  });
});
