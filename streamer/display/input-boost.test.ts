/** The boost of a session in use, on a clock the test moves (fake timers): when it starts, lasts and ends. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeFrameClock } from '../../test-support/fake-frame-clock.ts';
import { BOOST_FACTOR, BOOST_HOLD_MS, InputBoost } from './input-boost.ts';

describe('InputBoost', () => {
  let weights: number[];
  let boost: InputBoost;
  beforeEach(() => {
    vi.useFakeTimers();
    weights = [];
    boost = new InputBoost((factor) => weights.push(factor), fakeFrameClock);
  });
  afterEach(() => vi.useRealTimers());

  it('weighs the session more at the first input, once for a burst of them', () => {
    boost.input();
    expect(weights).toEqual([BOOST_FACTOR]);
    for (let i = 0; i < 60; i++) {
      vi.advanceTimersByTime(16);
      boost.input();
    }
    expect(weights).toEqual([BOOST_FACTOR]);
  });

  it('ends the boost a hold after the last input, not after the first', () => {
    boost.input();
    vi.advanceTimersByTime(BOOST_HOLD_MS - 100);
    boost.input();
    vi.advanceTimersByTime(BOOST_HOLD_MS - 1);
    expect(weights).toEqual([BOOST_FACTOR]);
    vi.advanceTimersByTime(1);
    expect(weights).toEqual([BOOST_FACTOR, 1]);
    // Nothing more while no input comes.
    vi.advanceTimersByTime(10 * BOOST_HOLD_MS);
    expect(weights).toEqual([BOOST_FACTOR, 1]);
  });

  it('boosts again at the next input after it ended', () => {
    boost.input();
    vi.advanceTimersByTime(BOOST_HOLD_MS);
    boost.input();
    expect(weights).toEqual([BOOST_FACTOR, 1, BOOST_FACTOR]);
  });

  it('gives back the equal share when closed while boosted, and nothing when not', () => {
    boost.close();
    expect(weights).toEqual([]);
    boost.input();
    boost.close();
    expect(weights).toEqual([BOOST_FACTOR, 1]);
    vi.advanceTimersByTime(10 * BOOST_HOLD_MS);
    expect(weights).toEqual([BOOST_FACTOR, 1]);
  });
});
