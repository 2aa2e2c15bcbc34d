/**
 * A small recent still of the picture, kept in the file the service names (STREAMGATE_STILL_PATH; the portal's
 * session cards show it): every few seconds one of the frames the application sends is scaled down to
 * STILL_WIDTH and written as a PNG, to a temporary file renamed over the last, so that a reader never gets half a
 * picture. Made here rather than as a second output of ffmpeg, so that it goes on while the encoder rests (nobody
 * watching: the frames then come only for the still) and ffmpeg keeps no still encoder of its own (12 MB of an
 * idle session's memory). PNG (pngjs, on node:zlib) rather than JPEG: jpeg-js, the JavaScript JPEG encoder, took
 * 50-80 MB of heap and 17-60 ms a still at 320x180, pngjs 2 MB and 8 ms; @napi-rs/canvas would load Skia into
 * every display host.
 */
import { rename, writeFile } from 'node:fs/promises';
import { PNG } from 'pngjs';
import type { PixelFormat } from './ffmpeg-args.ts';

/** A still every this many seconds, this many pixels wide. */
export const STILL_INTERVAL_S = 3;
export const STILL_WIDTH = 320;

/** What a still is made of: a frame as the encoder takes it, 4 bytes a pixel. */
export interface StillFrame {
  pixels: Buffer;
  width: number;
  height: number;
  layout: PixelFormat;
}

/**
 * `frame` scaled to `width` pixels wide (the height in proportion, even), each pixel the mean of the block of the
 * frame it covers, as RGBA. A frame narrower than `width` keeps its size.
 */
export function scaleDown(
  frame: StillFrame,
  width = STILL_WIDTH,
): { data: Buffer; width: number; height: number } {
  const outWidth = Math.min(width, frame.width);
  const outHeight = Math.max(2, Math.round((frame.height * outWidth) / frame.width / 2) * 2);
  const data = Buffer.alloc(outWidth * outHeight * 4);
  // rgba: red first; bgr0 (an X display's BGRX): blue first.
  const [r, b] = frame.layout === 'rgba' ? [0, 2] : [2, 0];
  const { pixels } = frame;
  for (let oy = 0; oy < outHeight; oy++) {
    const y0 = Math.floor((oy * frame.height) / outHeight);
    const y1 = Math.max(y0 + 1, Math.floor(((oy + 1) * frame.height) / outHeight));
    for (let ox = 0; ox < outWidth; ox++) {
      const x0 = Math.floor((ox * frame.width) / outWidth);
      const x1 = Math.max(x0 + 1, Math.floor(((ox + 1) * frame.width) / outWidth));
      let red = 0;
      let green = 0;
      let blue = 0;
      for (let y = y0; y < y1; y++) {
        let i = (y * frame.width + x0) * 4;
        for (let x = x0; x < x1; x++, i += 4) {
          red += pixels[i + r]!;
          green += pixels[i + 1]!;
          blue += pixels[i + b]!;
        }
      }
      const count = (y1 - y0) * (x1 - x0);
      const o = (oy * outWidth + ox) * 4;
      data[o] = red / count;
      data[o + 1] = green / count;
      data[o + 2] = blue / count;
      data[o + 3] = 255;
    }
  }
  return { data, width: outWidth, height: outHeight };
}

/**
 * `image` as a PNG, RGB without alpha (the picture is opaque, and a quarter smaller). Packed as a stream: its
 * deflate, most of a still's 6 ms, runs on libuv's threads rather than in the frames' event loop.
 */
function packed(image: { data: Buffer; width: number; height: number }): Promise<Buffer> {
  const png = new PNG({ width: image.width, height: image.height, colorType: 2 });
  png.data = image.data;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    png
      .pack()
      .on('data', (chunk: Buffer) => chunks.push(chunk))
      .on('end', () => resolve(Buffer.concat(chunks)))
      .on('error', reject);
  });
}

/** The clock stills are paced by, in milliseconds; injected so that tests move it. */
export type Now = () => number;

export class StillKeeper {
  private last = -Infinity;
  private writing = false;
  private failed = false;
  private spare: Buffer | null = null;

  constructor(
    private readonly path: string,
    private readonly log: (line: string) => void,
    private readonly now: Now = () => performance.now(),
    private readonly intervalMs = STILL_INTERVAL_S * 1000,
  ) {}

  /** Whether a frame offered now would be kept: the first at once, then one an interval. */
  get due(): boolean {
    return !this.failed && !this.writing && this.now() - this.last >= this.intervalMs;
  }

  /**
   * A frame buffer of `bytes` for a still alone, while no encoder takes frames (it rests): the same one each time,
   * so that what fills it reads only what changed since (the display's capture keeps that per buffer).
   */
  buffer(bytes: number): Buffer {
    if (this.spare?.length !== bytes) this.spare = Buffer.alloc(bytes);
    return this.spare;
  }

  /**
   * Keeps a still of `frame` if one is due. The frame is scaled at once, since its buffer is filled again after this
   * returns; the PNG is written after. Resolves once written (or skipped); never rejects: a still that cannot be
   * written (its directory gone, a full disk) is said once, and no other is tried.
   */
  async offer(frame: StillFrame): Promise<void> {
    if (!this.due) return;
    this.last = this.now();
    this.writing = true;
    const scaled = scaleDown(frame);
    try {
      const png = await packed(scaled);
      const temporary = `${this.path}.tmp`;
      await writeFile(temporary, png, { mode: 0o600 });
      await rename(temporary, this.path);
    } catch (error) {
      this.failed = true;
      this.log(
        `the still could not be written, so the session goes on without one: ${(error as Error).message}`,
      );
    } finally {
      this.writing = false;
    }
  }
}
