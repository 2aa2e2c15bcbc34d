/**
 * Machine-readable marks drawn into every frame, and their decoder. The viewer's tests and the
 * benchmarks read these back from decoded video, so the geometry here is a contract (see README.md).
 * Pure: no canvas, no Node APIs, so it also runs inside a browser page (via its source text).
 */

/** RGBA pixels, as `ImageData` of a canvas or `canvas.data()` of the application. */
export interface RgbaImage {
  data: ArrayLike<number>;
  width: number;
  height: number;
}

/** Side of the pointer square, in stream pixels. */
export const POINTER_SIZE = 24;
/** The pointer's colour; nothing else in the picture is drawn in it. */
export const POINTER_COLOR = '#FF00FF';
/** Width and height of one strip cell. */
export const CELL_SIZE = 16;
/** Cells in each strip row: one bit each, most significant first. */
export const CELL_COUNT = 32;
/** Height of the whole strip (two rows) at the bottom of the picture. */
export const STRIP_HEIGHT = 2 * CELL_SIZE;

/** What the marks of one frame say. */
export interface Marks {
  /** Frame counter of the application (row 1). */
  frame: number;
  /** `seq` of the last input event applied, 0 if none (row 2). */
  seq: number;
}

/** The cells of one row as booleans (true = white = 1), MSB first, for the drawing side. */
export function bitsOf(value: number): boolean[] {
  const v = value >>> 0;
  const bits: boolean[] = [];
  for (let i = CELL_COUNT - 1; i >= 0; i--) bits.push(((v >>> i) & 1) === 1);
  return bits;
}

function luma(image: RgbaImage, x: number, y: number): number {
  const i = (y * image.width + x) * 4;
  const d = image.data;
  return 0.299 * (d[i] ?? 0) + 0.587 * (d[i + 1] ?? 0) + 0.114 * (d[i + 2] ?? 0);
}

/** Reads one row: each cell's middle 8x8 pixels averaged, so that codec ringing at edges does not matter. */
function readRow(image: RgbaImage, top: number): number {
  let value = 0;
  for (let cell = 0; cell < CELL_COUNT; cell++) {
    let sum = 0;
    const x0 = cell * CELL_SIZE + CELL_SIZE / 4;
    const y0 = top + CELL_SIZE / 4;
    for (let y = y0; y < y0 + CELL_SIZE / 2; y++) {
      for (let x = x0; x < x0 + CELL_SIZE / 2; x++) sum += luma(image, x, y);
    }
    const bit = sum / ((CELL_SIZE * CELL_SIZE) / 4) >= 128 ? 1 : 0;
    value = value * 2 + bit;
  }
  return value;
}

/** Decodes the bottom strip of a frame. Returns null when the image is too small to hold it. */
export function decodeMarks(image: RgbaImage): Marks | null {
  if (image.width < CELL_COUNT * CELL_SIZE || image.height < STRIP_HEIGHT) return null;
  return {
    frame: readRow(image, image.height - STRIP_HEIGHT),
    seq: readRow(image, image.height - CELL_SIZE),
  };
}

/**
 * Finds the pointer square: the centre of the pixels that are clearly magenta (strong red and blue,
 * weak green), which survives lossy coding. Null when fewer than a quarter of the square's pixels are seen.
 */
export function findPointer(image: RgbaImage): { x: number; y: number } | null {
  let count = 0;
  let sumX = 0;
  let sumY = 0;
  const d = image.data;
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      const i = (y * image.width + x) * 4;
      const r = d[i] ?? 0;
      const g = d[i + 1] ?? 0;
      const b = d[i + 2] ?? 0;
      if (r > 180 && b > 180 && g < 90) {
        count++;
        sumX += x;
        sumY += y;
      }
    }
  }
  if (count < (POINTER_SIZE * POINTER_SIZE) / 4) return null;
  // +0.5: a square of even side centred on p covers p-12..p+11, whose mean is p-0.5.
  return { x: sumX / count + 0.5, y: sumY / count + 0.5 };
}
