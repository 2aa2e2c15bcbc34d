import { describe, expect, it } from 'vitest';
import { containedRect, toPagePoint, toStreamPoint } from './coordinate-mapping';

const stream = { width: 640, height: 360 };

describe('toStreamPoint', () => {
  it('maps 1:1 when the element has the stream size', () => {
    const box = { left: 10, top: 20, width: 640, height: 360 };
    expect(toStreamPoint(10, 20, box, stream)).toEqual({ x: 0, y: 0 });
    expect(toStreamPoint(10 + 320, 20 + 180, box, stream)).toEqual({ x: 320, y: 180 });
    expect(toStreamPoint(10 + 639.5, 20 + 359.5, box, stream)).toEqual({ x: 639, y: 359 });
  });

  it('accounts for letterboxing: a tall element has bars above and below', () => {
    // 640x720 element: the picture is scaled 1x and centred with 180 px bars.
    const box = { left: 0, top: 0, width: 640, height: 720 };
    expect(containedRect(box, stream)).toMatchObject({ top: 180, height: 360, scale: 1 });
    expect(toStreamPoint(100, 100, box, stream)).toBeUndefined();
    expect(toStreamPoint(100, 180, box, stream)).toEqual({ x: 100, y: 0 });
    expect(toStreamPoint(100, 539, box, stream)).toEqual({ x: 100, y: 359 });
    expect(toStreamPoint(100, 541, box, stream)).toBeUndefined();
  });

  it('accounts for pillarboxing: a wide element has bars left and right, and scales', () => {
    // 1600x450 element: scale 1.25, picture 800x450 centred with 400 px bars.
    const box = { left: 0, top: 0, width: 1600, height: 450 };
    expect(containedRect(box, stream)).toMatchObject({ left: 400, width: 800, scale: 1.25 });
    expect(toStreamPoint(399, 200, box, stream)).toBeUndefined();
    expect(toStreamPoint(400, 0, box, stream)).toEqual({ x: 0, y: 0 });
    expect(toStreamPoint(800, 225, box, stream)).toEqual({ x: 320, y: 180 });
    expect(toStreamPoint(1201, 200, box, stream)).toBeUndefined();
  });

  it('clamps to the nearest edge when asked', () => {
    const box = { left: 0, top: 0, width: 1600, height: 450 };
    expect(toStreamPoint(10, 225, box, stream, true)).toEqual({ x: 0, y: 180 });
    expect(toStreamPoint(1590, 1000, box, stream, true)).toEqual({ x: 639, y: 359 });
  });

  it('maps nothing before the first frame gives a stream size', () => {
    expect(
      toStreamPoint(5, 5, { left: 0, top: 0, width: 100, height: 100 }, { width: 0, height: 0 }),
    ).toBeUndefined();
  });
});

describe('toPagePoint', () => {
  it('puts a stream pixel at its centre in the displayed picture, past the bars, and back to the same pixel', () => {
    // 1600x450 element at (100, 50): scale 1.25, picture 800x450 with 400 px bars left and right.
    const box = { left: 100, top: 50, width: 1600, height: 450 };
    expect(toPagePoint({ x: 0, y: 0 }, box, stream)).toEqual({ x: 500.625, y: 50.625 });
    expect(toPagePoint({ x: 320, y: 180 }, box, stream)).toEqual({ x: 900.625, y: 275.625 });
    for (const pixel of [
      { x: 0, y: 0 },
      { x: 639, y: 359 },
      { x: 17, y: 203 },
    ]) {
      const page = toPagePoint(pixel, box, stream)!;
      expect(toStreamPoint(page.x, page.y, box, stream)).toEqual(pixel);
    }
  });

  it('places nothing before the first frame or in an element not laid out', () => {
    const box = { left: 0, top: 0, width: 100, height: 100 };
    expect(toPagePoint({ x: 1, y: 1 }, box, { width: 0, height: 0 })).toBeUndefined();
    expect(toPagePoint({ x: 1, y: 1 }, { ...box, width: 0 }, stream)).toBeUndefined();
  });
});
