import { describe, expect, it } from 'vitest';
import { blit, fillCircle, fillRect, strokeRing, type Pixels } from './pixels.ts';

const make = (width: number, height: number): Pixels => ({
  data: Buffer.alloc(width * height * 4),
  width,
  height,
});
const at = (p: Pixels, x: number, y: number) => [
  ...p.data.subarray((y * p.width + x) * 4, (y * p.width + x) * 4 + 4),
];

describe('pixel drawing', () => {
  it('fills a rectangle, clipped at the edges', () => {
    const p = make(8, 8);
    fillRect(p, -2, 6, 4, 4, [255, 0, 255]);
    expect(at(p, 0, 6)).toEqual([255, 0, 255, 255]);
    expect(at(p, 1, 7)).toEqual([255, 0, 255, 255]);
    expect(at(p, 2, 6)).toEqual([0, 0, 0, 0]);
    expect(at(p, 0, 5)).toEqual([0, 0, 0, 0]);
  });

  it('fills a disc and leaves its corners alone', () => {
    const p = make(21, 21);
    fillCircle(p, 10, 10, 8, [1, 2, 3]);
    expect(at(p, 10, 10)).toEqual([1, 2, 3, 255]);
    expect(at(p, 10, 3)).toEqual([1, 2, 3, 255]);
    expect(at(p, 3, 3)).toEqual([0, 0, 0, 0]);
  });

  it('blends a ring over what is there, leaving its centre', () => {
    const p = make(40, 40);
    fillRect(p, 0, 0, 40, 40, [0, 0, 0]);
    strokeRing(p, 20, 20, 10, 2, [200, 100, 0], 0.5);
    expect(at(p, 30, 20)).toEqual([100, 50, 0, 255]);
    expect(at(p, 20, 20)).toEqual([0, 0, 0, 255]);
  });

  it('copies a patch row by row', () => {
    const p = make(6, 4);
    const patch = Buffer.alloc(2 * 2 * 4, 9);
    blit(p, patch, 3, 1, 2, 2);
    expect(at(p, 3, 1)).toEqual([9, 9, 9, 9]);
    expect(at(p, 4, 2)).toEqual([9, 9, 9, 9]);
    expect(at(p, 5, 1)).toEqual([0, 0, 0, 0]);
    expect(at(p, 3, 3)).toEqual([0, 0, 0, 0]);
  });
});
