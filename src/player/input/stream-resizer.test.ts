import { describe, expect, it } from 'vitest';
import { StreamResizer, wantedSize } from './stream-resizer';

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

describe('StreamResizer', () => {
  it('asks for the size that new limits give at once, and nothing again for the same size', () => {
    const element = { clientWidth: 1052, clientHeight: 592 } as HTMLElement;
    const sent: string[] = [];
    const resizer = new StreamResizer(element, {}, (w, h) => sent.push(`${w}x${h}`) > 0);
    resizer.sendNow();
    resizer.setOptions({ maxWidth: 640, maxHeight: 360 });
    resizer.setOptions({ maxWidth: 640, maxHeight: 360 });
    resizer.setOptions({});
    expect(sent).toEqual(['1052x592', '640x360', '1052x592']);
    resizer.dispose();
  });
});
