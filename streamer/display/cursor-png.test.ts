import { createCanvas, loadImage } from '@napi-rs/canvas';
import { crc32, inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseCursorImage } from '../../protocol/data-channels.ts';
import { cursorMessage, cursorPng } from './cursor-png.ts';
import type { CursorImage } from './frame-pixels.ts';

/** A cursor of `argb` pixels (premultiplied, as XFIXES gives them), row after row. */
function cursor(width: number, height: number, argb: number[], xhot = 0, yhot = 0): CursorImage {
  const pixels = Buffer.alloc(width * height * 4);
  argb.forEach((value, i) => pixels.writeUInt32LE(value >>> 0, i * 4));
  return { width, height, xhot, yhot, pixels };
}

/** Reads a PNG back by the book: its chunks (each CRC checked), its header, and its rows inflated. */
function decode(png: Buffer) {
  expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const chunks: { type: string; data: Buffer }[] = [];
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at);
    const typed = png.subarray(at + 4, at + 8 + length);
    expect(png.readUInt32BE(at + 8 + length)).toBe(crc32(typed));
    chunks.push({ type: typed.subarray(0, 4).toString('latin1'), data: typed.subarray(4) });
    at += 12 + length;
  }
  expect(chunks.map((c) => c.type)).toEqual(['IHDR', 'IDAT', 'IEND']);
  const header = chunks[0]!.data;
  const width = header.readUInt32BE(0);
  const height = header.readUInt32BE(4);
  expect([...header.subarray(8)]).toEqual([8, 6, 0, 0, 0]);
  const raw = inflateSync(chunks[1]!.data);
  const rows: number[][] = [];
  for (let y = 0; y < height; y++) {
    const row = raw.subarray(y * (1 + width * 4), (y + 1) * (1 + width * 4));
    expect(row[0]).toBe(0);
    rows.push([...row.subarray(1)]);
  }
  return { width, height, rgba: rows.flat() };
}

// Opaque red, transparent, half-transparent white (premultiplied: 0x80 in each channel), and a quarter-opaque
// blue (0x40 alpha, blue 0x40 premultiplied: full blue).
const PIXELS = [0xffff0000, 0x00000000, 0x80808080, 0x40000040];
const STRAIGHT = [255, 0, 0, 255, 0, 0, 0, 0, 255, 255, 255, 128, 0, 0, 255, 64];

describe('the cursor as a PNG', () => {
  it('holds the image in straight (not premultiplied) RGBA, alpha included', () => {
    expect(decode(cursorPng(cursor(2, 2, PIXELS)))).toEqual({ width: 2, height: 2, rgba: STRAIGHT });
  });

  it('is a PNG an image decoder reads, with the same pixels', async () => {
    const image = await loadImage(cursorPng(cursor(2, 2, PIXELS)));
    expect([image.width, image.height]).toEqual([2, 2]);
    const canvas = createCanvas(2, 2);
    const context = canvas.getContext('2d');
    context.drawImage(image, 0, 0);
    const read = [...context.getImageData(0, 0, 2, 2).data];
    // The canvas keeps premultiplied pixels inside: a translucent colour comes back within a unit or two.
    read.forEach((value, i) => expect(Math.abs(value - (STRAIGHT[i] as number))).toBeLessThanOrEqual(2));
  });
});

describe('the cursorImage event', () => {
  it('carries the image as a PNG data URL with its hot spot, which a player accepts', () => {
    const message = cursorMessage(cursor(2, 2, PIXELS, 1, 1));
    expect(message.event_type).toBe('cursorImage');
    const payload = parseCursorImage(message.payload);
    expect(payload).toMatchObject({ hotspot_x: 1, hotspot_y: 1 });
    const url = (payload as { url: string }).url;
    expect(url.startsWith('data:image/png;base64,')).toBe(true);
    expect(decode(Buffer.from(url.slice(url.indexOf(',') + 1), 'base64')).rgba).toEqual(STRAIGHT);
  });

  it('says hidden for a cursor that shows nothing, and for one too large to send', () => {
    expect(cursorMessage(cursor(2, 2, [0, 0, 0, 0])).payload).toEqual({ hidden: true });
    expect(cursorMessage(cursor(0, 0, [])).payload).toEqual({ hidden: true });
    expect(cursorMessage(cursor(129, 1, [0xffffffff])).payload).toEqual({ hidden: true });
    expect(cursorMessage(cursor(128, 1, [0xffffffff])).payload).toHaveProperty('url');
  });
});
