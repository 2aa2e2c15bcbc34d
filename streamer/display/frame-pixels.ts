/**
 * The pixels of a frame as the display host's capture handles them: which rectangles to read (clipped, merged,
 * widened to whole rows), copying read pixels into a frame, and the cursor drawn over it with the pixels under
 * it kept to put back. Frames are 32-bit BGRX, row after row.
 */

/** More damaged rectangles than this are read as their bounding box, in one request. */
export const MAX_RECTS = 16;

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** An ARGB cursor image (premultiplied, as XFIXES gives it) and its hot spot. */
export interface CursorImage {
  width: number;
  height: number;
  xhot: number;
  yhot: number;
  pixels: Buffer;
}

/**
 * Clips `rects` to `width`x`height`. Many rectangles, or rectangles that overlap so much that they add up to
 * more than the area, become their bounding box: one request, and never more pixels than the area holds.
 * A rectangle wider than half the area is read across its whole width: its rows then lie in the frame as
 * they lie in the reply, and arrive with one read instead of one per row.
 */
export function toRead(rects: readonly Rect[], width: number, height: number): Rect[] {
  const clipped: Rect[] = [];
  for (const r of rects) {
    const x = Math.max(0, r.x);
    const y = Math.max(0, r.y);
    const right = Math.min(width, r.x + r.width);
    const bottom = Math.min(height, r.y + r.height);
    if (right <= x || bottom <= y) continue;
    const wide = (right - x) * 2 > width;
    clipped.push(
      wide ? { x: 0, y, width, height: bottom - y } : { x, y, width: right - x, height: bottom - y },
    );
  }
  const area = clipped.reduce((sum, r) => sum + r.width * r.height, 0);
  if (clipped.length <= MAX_RECTS && area <= width * height) return clipped;
  const x = Math.min(...clipped.map((r) => r.x));
  const y = Math.min(...clipped.map((r) => r.y));
  const right = Math.max(...clipped.map((r) => r.x + r.width));
  const bottom = Math.max(...clipped.map((r) => r.y + r.height));
  const wide = (right - x) * 2 > width;
  return [{ x: wide ? 0 : x, y, width: wide ? width : right - x, height: bottom - y }];
}

/** Copies `rows` of 32-bit pixels read at `rect` into `frame`, a picture `frameWidth` pixels wide. */
export function blit(frame: Buffer, frameWidth: number, rect: Rect, pixels: Buffer): void {
  const rowBytes = rect.width * 4;
  for (let row = 0; row < rect.height; row++) {
    const from = row * rowBytes;
    pixels.copy(frame, ((rect.y + row) * frameWidth + rect.x) * 4, from, from + rowBytes);
  }
}

/**
 * Draws `cursor` with its hot spot at (`px`, `py`) onto `frame` (BGRX, `width`x`height`): premultiplied
 * ARGB over opaque pixels, clipped to the frame.
 */
export function drawCursor(
  frame: Buffer,
  width: number,
  height: number,
  cursor: CursorImage,
  px: number,
  py: number,
): void {
  const left = px - cursor.xhot;
  const top = py - cursor.yhot;
  for (let cy = 0; cy < cursor.height; cy++) {
    const y = top + cy;
    if (y < 0 || y >= height) continue;
    for (let cx = 0; cx < cursor.width; cx++) {
      const x = left + cx;
      if (x < 0 || x >= width) continue;
      const argb = cursor.pixels.readUInt32LE((cy * cursor.width + cx) * 4);
      const alpha = argb >>> 24;
      if (alpha === 0) continue;
      const at = (y * width + x) * 4;
      const keep = 255 - alpha;
      // Little-endian ARGB32 and BGRX share their byte order: blue, green, red, then alpha or padding.
      for (let c = 0; c < 3; c++) {
        const source = (argb >>> (8 * c)) & 0xff;
        frame[at + c] = Math.min(255, source + Math.round(((frame[at + c] as number) * keep) / 255));
      }
    }
  }
}

/** Pixels a buffer held before something was drawn over them (the cursor), to put back. */
export interface Patch {
  rect: Rect;
  pixels: Buffer;
}

/** Copies the pixels of `rect` out of `frame` (`width` pixels wide). */
export function cut(frame: Buffer, width: number, rect: Rect): Buffer {
  const rowBytes = rect.width * 4;
  const pixels = Buffer.allocUnsafe(rowBytes * rect.height);
  for (let row = 0; row < rect.height; row++) {
    const from = ((rect.y + row) * width + rect.x) * 4;
    frame.copy(pixels, row * rowBytes, from, from + rowBytes);
  }
  return pixels;
}

/** Where `cursor` with its hot spot at (`px`, `py`) lies on a `width`x`height` frame; null when off it. */
export function cursorRect(
  cursor: CursorImage,
  px: number,
  py: number,
  width: number,
  height: number,
): Rect | null {
  const x = Math.max(0, px - cursor.xhot);
  const y = Math.max(0, py - cursor.yhot);
  const right = Math.min(width, px - cursor.xhot + cursor.width);
  const bottom = Math.min(height, py - cursor.yhot + cursor.height);
  return right > x && bottom > y ? { x, y, width: right - x, height: bottom - y } : null;
}
