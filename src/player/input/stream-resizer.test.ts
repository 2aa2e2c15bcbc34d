import { describe, expect, it } from 'vitest';
import { wantedSize } from './stream-resizer';

describe('wantedSize', () => {
  it('follows the element in device pixels, rounded to even numbers', () => {
    expect(wantedSize(801, 451, 1, {})).toEqual({ width: 802, height: 452 });
    expect(wantedSize(640, 360, 2, {})).toEqual({ width: 1280, height: 720 });
  });

  it('scales a large element down as a whole, keeping its aspect', () => {
    expect(wantedSize(3840, 1600, 1, { maxWidth: 1920, maxHeight: 1080 })).toEqual({
      width: 1920,
      height: 800,
    });
  });

  it('never goes below the minimum or above the maximum', () => {
    expect(wantedSize(100, 50, 1, { minWidth: 320, minHeight: 180 })).toEqual({ width: 320, height: 180 });
    expect(wantedSize(5000, 100, 1, { maxWidth: 1920, maxHeight: 1080, minHeight: 180 })).toEqual({
      width: 1920,
      height: 180,
    });
  });

  it('asks for nothing while the element is not laid out', () => {
    expect(wantedSize(0, 300, 1, {})).toBeUndefined();
  });
});
