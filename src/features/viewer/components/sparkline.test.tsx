import { describe, expect, it } from 'vitest';
import { sparklinePoints } from './sparkline';

describe('sparklinePoints', () => {
  it('spreads values over the width and puts the largest at the top', () => {
    expect(sparklinePoints([0, 5, 10], 100, 20)).toBe('0.0,20.0 50.0,10.0 100.0,0.0');
  });

  it('draws nothing without values and a flat line at zero', () => {
    expect(sparklinePoints([], 100, 20)).toBe('');
    expect(sparklinePoints([0, 0], 100, 20)).toBe('0.0,20.0 100.0,20.0');
  });
});
