/**
 * The X pointer's image as a PNG data URL, for the `cursorImage` event (protocol/data-channels.ts): a
 * controlling viewer shows it as its own cursor, where it moves with the person's hand, instead of seeing it
 * drawn into the video a stream's latency late. Encoded here without a library: a PNG is a signature, an IHDR,
 * the deflated rows in an IDAT and an IEND, each chunk with its CRC-32.
 */
import { crc32, deflateSync } from 'node:zlib';
import {
  CURSOR_IMAGE_EVENT,
  MAX_CURSOR_SIZE,
  type AppMessage,
  type CursorImagePayload,
} from '../../protocol/data-channels.ts';
import type { CursorImage } from './frame-pixels.ts';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const BIT_DEPTH = 8;
const COLOR_RGBA = 6;
const FILTER_NONE = 0;

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(head.subarray(4))), 0);
  return Buffer.concat([head, data, crc]);
}

/** Whether viewers can be sent `cursor` as an image (small enough); a larger one stays in the video. */
export function viewersCanDraw(cursor: CursorImage): boolean {
  return cursor.width <= MAX_CURSOR_SIZE && cursor.height <= MAX_CURSOR_SIZE;
}

/** Whether `cursor` shows nothing: no pixels, or every one transparent (a program that hides the pointer). */
export function isHidden(cursor: CursorImage): boolean {
  for (let i = 3; i < cursor.width * cursor.height * 4; i += 4) if (cursor.pixels[i] !== 0) return false;
  return true;
}

/**
 * `cursor` (XFIXES' premultiplied ARGB, little-endian: blue, green, red, alpha) as a PNG of straight RGBA,
 * which is what PNG's alpha means.
 */
export function cursorPng(cursor: CursorImage): Buffer {
  const { width, height, pixels } = cursor;
  const rowBytes = 1 + width * 4;
  const raw = Buffer.alloc(rowBytes * height);
  for (let y = 0; y < height; y++) {
    raw[y * rowBytes] = FILTER_NONE;
    for (let x = 0; x < width; x++) {
      const from = (y * width + x) * 4;
      const to = y * rowBytes + 1 + x * 4;
      const alpha = pixels[from + 3] as number;
      if (alpha === 0) continue;
      const straight = (c: number) => Math.min(255, Math.round(((pixels[from + c] as number) * 255) / alpha));
      raw[to] = straight(2);
      raw[to + 1] = straight(1);
      raw[to + 2] = straight(0);
      raw[to + 3] = alpha;
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = BIT_DEPTH;
  header[9] = COLOR_RGBA;
  // Compression, filter and interlace methods: 0, 0, none.
  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * The `cursorImage` event for `cursor`: hidden when it shows nothing, and also when it is too large to send,
 * since the host then draws it into the video and a local cursor beside it would be a second pointer.
 */
export function cursorMessage(cursor: CursorImage): AppMessage {
  const payload: CursorImagePayload =
    isHidden(cursor) || !viewersCanDraw(cursor)
      ? { hidden: true }
      : {
          url: `data:image/png;base64,${cursorPng(cursor).toString('base64')}`,
          hotspot_x: Math.min(cursor.xhot, cursor.width - 1),
          hotspot_y: Math.min(cursor.yhot, cursor.height - 1),
        };
  return { event_type: CURSOR_IMAGE_EVENT, payload };
}
