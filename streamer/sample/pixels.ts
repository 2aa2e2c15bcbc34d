/**
 * Drawing straight into an RGBA buffer for the parts of the picture that change every frame. Reading
 * pixels back from a canvas costs ~10 ms a 720p frame; these spans cost microseconds.
 */

/** An opaque RGBA colour. */
export type Rgb = readonly [number, number, number];

/** A frame buffer: width*height*4 bytes, row-major RGBA. */
export interface Pixels {
  data: Buffer;
  width: number;
  height: number;
}

const patterns = new Map<string, Buffer>();

function pattern(color: Rgb): Buffer {
  const key = color.join(',');
  let buf = patterns.get(key);
  if (!buf) {
    buf = Buffer.from([color[0], color[1], color[2], 255]);
    patterns.set(key, buf);
  }
  return buf;
}

/** Fills a rectangle, clipped to the buffer. */
export function fillRect(p: Pixels, x: number, y: number, w: number, h: number, color: Rgb): void {
  const x0 = Math.max(0, Math.round(x));
  const y0 = Math.max(0, Math.round(y));
  const x1 = Math.min(p.width, Math.round(x + w));
  const y1 = Math.min(p.height, Math.round(y + h));
  if (x1 <= x0) return;
  const fill = pattern(color);
  for (let row = y0; row < y1; row++) {
    const start = (row * p.width + x0) * 4;
    p.data.fill(fill, start, start + (x1 - x0) * 4);
  }
}

/** Fills a disc, clipped to the buffer. */
export function fillCircle(p: Pixels, cx: number, cy: number, r: number, color: Rgb): void {
  const fill = pattern(color);
  const y0 = Math.max(0, Math.ceil(cy - r));
  const y1 = Math.min(p.height - 1, Math.floor(cy + r));
  for (let row = y0; row <= y1; row++) {
    const half = Math.sqrt(Math.max(0, r * r - (row - cy) ** 2));
    const x0 = Math.max(0, Math.round(cx - half));
    const x1 = Math.min(p.width, Math.round(cx + half));
    if (x1 > x0) p.data.fill(fill, (row * p.width + x0) * 4, (row * p.width + x1) * 4);
  }
}

/** Blends a ring (radius r, thickness t) over the buffer with opacity alpha. */
export function strokeRing(
  p: Pixels,
  cx: number,
  cy: number,
  r: number,
  t: number,
  color: Rgb,
  alpha: number,
) {
  const outer = r + t / 2;
  const inner = Math.max(0, r - t / 2);
  const y0 = Math.max(0, Math.ceil(cy - outer));
  const y1 = Math.min(p.height - 1, Math.floor(cy + outer));
  const x0 = Math.max(0, Math.ceil(cx - outer));
  const x1 = Math.min(p.width - 1, Math.floor(cx + outer));
  const a = Math.max(0, Math.min(1, alpha));
  const d = p.data;
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      const dist = Math.hypot(x - cx, y - cy);
      if (dist < inner || dist > outer) continue;
      const i = (y * p.width + x) * 4;
      d[i] = d[i]! + (color[0] - d[i]!) * a;
      d[i + 1] = d[i + 1]! + (color[1] - d[i + 1]!) * a;
      d[i + 2] = d[i + 2]! + (color[2] - d[i + 2]!) * a;
    }
  }
}

/** Copies a w*h RGBA patch into the buffer at (x, y); the patch must lie inside it. */
export function blit(p: Pixels, patch: Buffer, x: number, y: number, w: number, h: number): void {
  for (let row = 0; row < h; row++) {
    patch.copy(p.data, ((y + row) * p.width + x) * 4, row * w * 4, (row + 1) * w * 4);
  }
}
