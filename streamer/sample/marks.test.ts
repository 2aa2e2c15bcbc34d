import { describe, expect, it } from 'vitest';
import {
  bitsOf,
  CELL_COUNT,
  CELL_SIZE,
  decodeMarks,
  findPointer,
  POINTER_SIZE,
  STRIP_HEIGHT,
  type RgbaImage,
} from './marks.ts';
import { Scene, type SceneState } from './scene.ts';

function blank(width: number, height: number, grey = 40): RgbaImage & { data: Uint8ClampedArray } {
  const data = new Uint8ClampedArray(width * height * 4).fill(grey);
  for (let i = 3; i < data.length; i += 4) data[i] = 255;
  return { data, width, height };
}

function fill(
  image: RgbaImage & { data: Uint8ClampedArray },
  x: number,
  y: number,
  w: number,
  h: number,
  rgb: number[],
) {
  for (let row = y; row < y + h; row++) {
    for (let col = x; col < x + w; col++) {
      const i = (row * image.width + col) * 4;
      image.data.set(rgb, i);
    }
  }
}

function drawStrip(image: RgbaImage & { data: Uint8ClampedArray }, frame: number, seq: number) {
  [frame, seq].forEach((value, row) => {
    bitsOf(value).forEach((bit, cell) => {
      const v = bit ? 255 : 0;
      fill(image, cell * CELL_SIZE, image.height - 2 * CELL_SIZE + row * CELL_SIZE, CELL_SIZE, CELL_SIZE, [
        v,
        v,
        v,
      ]);
    });
  });
}

const state = (): SceneState => ({
  appName: 'USD Viewer',
  appVersion: '1.2.0',
  profile: 'default',
  stageUri: '',
  loadingState: 'idle',
  pointer: null,
  lastKey: '',
  viewers: 0,
  seq: 0,
  testMarks: true,
});

describe('bitsOf', () => {
  it('gives 32 cells, most significant first', () => {
    const bits = bitsOf(5);
    expect(bits).toHaveLength(CELL_COUNT);
    expect(bits.slice(-3)).toEqual([true, false, true]);
    expect(bits.slice(0, -3).every((b) => !b)).toBe(true);
    expect(bitsOf(0x80000000)[0]).toBe(true);
  });
});

describe('decodeMarks', () => {
  it('reads back the frame counter and the seq, full 32-bit values included', () => {
    const image = blank(640, 360);
    drawStrip(image, 123_456, 0xfffffffe);
    expect(decodeMarks(image)).toEqual({ frame: 123_456, seq: 0xfffffffe });
  });

  it('tolerates noise of a lossy codec within each cell', () => {
    const image = blank(640, 360);
    drawStrip(image, 77, 9);
    for (let i = 0; i < image.data.length; i += 4) {
      const noise = ((i * 7919) % 61) - 30;
      for (let c = 0; c < 3; c++) image.data[i + c] = (image.data[i + c] ?? 0) + noise;
    }
    expect(decodeMarks(image)).toEqual({ frame: 77, seq: 9 });
  });

  it('refuses an image too small to hold the strip', () => {
    expect(decodeMarks(blank(CELL_COUNT * CELL_SIZE - 1, 100))).toBeNull();
  });
});

describe('findPointer', () => {
  it('finds the centre of the magenta square', () => {
    const image = blank(640, 360);
    fill(image, 300 - POINTER_SIZE / 2, 150 - POINTER_SIZE / 2, POINTER_SIZE, POINTER_SIZE, [255, 0, 255]);
    expect(findPointer(image)).toEqual({ x: 300, y: 150 });
  });

  it('sees no pointer in a picture without magenta', () => {
    const image = blank(640, 360);
    fill(image, 10, 10, 50, 50, [255, 0, 0]);
    fill(image, 100, 10, 50, 50, [0, 0, 255]);
    expect(findPointer(image)).toBeNull();
  });
});

describe('the marks in a rendered scene', () => {
  it('shows the frame counter, the last seq and the pointer, and nothing else magenta', () => {
    const s = state();
    const scene = new Scene(640, 360, s);
    const image = (data: Buffer): RgbaImage => ({ data, width: 640, height: 360 });
    const first = image(scene.render(0));
    expect(decodeMarks(first)).toEqual({ frame: 1, seq: 0 });
    expect(findPointer(first)).toBeNull();

    s.pointer = { x: 200, y: 120 };
    s.seq = 42;
    scene.addRipple(400, 200, 16);
    const second = image(scene.render(33));
    expect(decodeMarks(second)).toEqual({ frame: 2, seq: 42 });
    expect(findPointer(second)).toEqual({ x: 200, y: 120 });

    // Moving the pointer must leave no magenta behind at the old place.
    s.pointer = { x: 500, y: 80 };
    const third = image(scene.render(66));
    expect(findPointer(third)).toEqual({ x: 500, y: 80 });
  });
});

describe('a scene without test marks (the default)', () => {
  it('draws no strip: its bottom rows are the background, whatever the frame and seq', () => {
    const marked = new Scene(640, 360, state());
    const plain = new Scene(640, 360, { ...state(), testMarks: false, seq: 0xffffffff });
    for (let i = 0; i < 40; i++) plain.render(i);
    const rows = (frame: Buffer) => frame.subarray(640 * (360 - STRIP_HEIGHT) * 4);
    const background = Buffer.from(rows(new Scene(640, 360, { ...state(), testMarks: false }).render(0)));
    expect(rows(plain.render(40)).equals(background)).toBe(true);
    expect(rows(marked.render(0)).equals(background)).toBe(false);
  });
});

describe('a scene too small for its panel', () => {
  it.each([
    [64, 64],
    [2, 2],
  ])('still renders at %ix%i', (width, height) => {
    const s = { ...state(), pointer: { x: 1, y: 1 } };
    const scene = new Scene(width, height, s);
    scene.addRipple(0, 0, 0);
    const frame = scene.render(10);
    expect(frame.length).toBe(width * height * 4);
    // The pointer square (here at the top-left corner) is drawn wherever the strip leaves room.
    if (height > 2 * CELL_SIZE) expect([...frame.subarray(0, 4)]).toEqual([255, 0, 255, 255]);
  });
});

describe('the status panel of a rendered scene', () => {
  it('shows a key in the next frame, however soon, and holds the frame counter back', () => {
    // No marks strip: frames drawn at one instant then differ only where the panel does.
    const s = { ...state(), testMarks: false };
    const scene = new Scene(640, 360, s);
    const first = Buffer.from(scene.render(1_000));
    // The frame counter changed, but within 100 ms it is not redrawn: the same picture.
    expect(Buffer.from(scene.render(1_000)).equals(first)).toBe(true);
    s.lastKey = 'a';
    expect(Buffer.from(scene.render(1_000)).equals(first)).toBe(false);
  });
});
