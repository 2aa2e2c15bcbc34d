/**
 * What a page's <video> shows, read back from its pixels and decoded with the sample application's own
 * marks (streamer/sample/marks.ts, put into the page with `marksScript()`).
 */
import { expect, type Page } from '@playwright/test';

export interface Look {
  width: number;
  height: number;
  frames: number;
  marks: { frame: number; seq: number } | null;
  pointer: { x: number; y: number } | null;
}

/**
 * What `read` makes of the page's video as it shows now, its pixels at the video's own size; null before its first
 * frame. `read` runs in the page, where it may use nothing but its arguments: `arg` is passed to it as JSON.
 */
export async function readVideo<T, A = null>(
  page: Page,
  read: (image: ImageData, arg: A) => T,
  arg: A = null as A,
): Promise<T | null> {
  const grab = (reader: (image: ImageData, arg: unknown) => unknown, given: unknown) => {
    const video = document.querySelector('video');
    if (!video || video.videoWidth === 0) return null;
    const canvas = document.createElement('canvas');
    canvas.width = video.videoWidth;
    canvas.height = video.videoHeight;
    const ctx = canvas.getContext('2d', { willReadFrequently: true });
    if (!ctx) return null;
    ctx.drawImage(video, 0, 0);
    return reader(ctx.getImageData(0, 0, canvas.width, canvas.height), given);
  };
  // One expression of both functions' sources: evaluated as the page's own code would be, a function passed as an
  // argument could not be called there.
  return page.evaluate<T | null>(`(${grab.toString()})(${read.toString()}, ${JSON.stringify(arg)})`);
}

/** What the page's video shows now: its size, frames decoded so far, and the marks read from its pixels. */
export async function look(page: Page): Promise<Look | null> {
  return readVideo(page, (image) => {
    type Reader = {
      decodeMarks(i: ImageData): { frame: number; seq: number } | null;
      findPointer(i: ImageData): { x: number; y: number } | null;
    };
    const reader = (window as unknown as { streamgateMarks: Reader }).streamgateMarks;
    return {
      width: image.width,
      height: image.height,
      frames: document.querySelector('video')?.getVideoPlaybackQuality().totalVideoFrames ?? 0,
      marks: reader.decodeMarks(image),
      pointer: reader.findPointer(image),
    };
  });
}

/** Waits until the viewer plays and its picture moves on (the application's frame counter grows). */
export async function expectPlaying(page: Page) {
  await expect(page.getByTestId('player-state')).toHaveText('Playing', { timeout: 20_000 });
  let first: Look | undefined;
  await expect
    .poll(async () => {
      const now = await look(page);
      if (now?.marks) first = now;
      return now?.marks ?? null;
    })
    .not.toBeNull();
  const start = first as Look;
  await expect
    .poll(async () => {
      const now = await look(page);
      return now?.marks && start.marks ? now.marks.frame - start.marks.frame : 0;
    })
    .toBeGreaterThan(5);
  await expect.poll(async () => (await look(page))?.frames ?? 0).toBeGreaterThan(start.frames);
}

/** A coarse picture of a program's video: its colours, few for a blank screen, and a grid of mean brightness. */
export interface Sketch {
  colours: number;
  /** Mean brightness (0 to 255) of each cell of a 32 by 18 grid over the picture, row by row. */
  cells: number[];
}

/** What the page's video shows now, as a Sketch; null before its first frame. */
export async function sketch(page: Page): Promise<Sketch | null> {
  return page.evaluate(() => {
    const video = document.querySelector('video');
    if (!video || video.videoWidth === 0) return null;
    // Drawn at 32x18, each pixel is the mean of its cell; drawn at a small size, a colour count of the whole.
    const grid = document.createElement('canvas');
    grid.width = 32;
    grid.height = 18;
    const g = grid.getContext('2d', { willReadFrequently: true });
    const whole = document.createElement('canvas');
    whole.width = 320;
    whole.height = 180;
    const w = whole.getContext('2d', { willReadFrequently: true });
    if (!g || !w) return null;
    g.drawImage(video, 0, 0, grid.width, grid.height);
    w.drawImage(video, 0, 0, whole.width, whole.height);
    const cells: number[] = [];
    const small = g.getImageData(0, 0, grid.width, grid.height).data;
    for (let i = 0; i < small.length; i += 4) {
      cells.push(((small[i] as number) + (small[i + 1] as number) + (small[i + 2] as number)) / 3);
    }
    const colours = new Set<number>();
    const data = w.getImageData(0, 0, whole.width, whole.height).data;
    for (let i = 0; i < data.length; i += 4) {
      // Coarse colours, so that the encoder's noise does not count.
      colours.add(
        ((data[i] as number) >> 4) * 256 +
          ((data[i + 1] as number) >> 4) * 16 +
          ((data[i + 2] as number) >> 4),
      );
    }
    return { colours: colours.size, cells };
  });
}

/**
 * The share (0 to 1) of the grid's cells whose brightness differs by more than 3 between two sketches: a caret
 * blinking changes one cell or none, a scrolled page, a turned model or a new slide a good part of them.
 */
export function changed(a: Sketch, b: Sketch): number {
  const moved = a.cells.filter((value, i) => Math.abs(value - (b.cells[i] ?? value)) > 3).length;
  return moved / a.cells.length;
}

/**
 * The picture once it has held still: two sketches `everyMs` apart differ in at most `most` of the grid (0: not at
 * all, for a terminal between keys; a little, for a program whose encoder still sharpens its first frames).
 */
export async function settled(
  page: Page,
  {
    most = 0.02,
    everyMs = 700,
    timeout = 40_000,
  }: { most?: number; everyMs?: number; timeout?: number } = {},
): Promise<Sketch> {
  let last = await sketch(page);
  await expect
    .poll(
      async () => {
        await page.waitForTimeout(everyMs);
        const now = await sketch(page);
        const still = last !== null && now !== null && changed(last, now) <= most;
        last = now;
        return still;
      },
      { timeout },
    )
    .toBe(true);
  return last as Sketch;
}

/** Where stream pixel (x, y) is on the page, for a video drawn with object-fit: contain. */
export async function pagePoint(page: Page, x: number, y: number) {
  const video = page.getByLabel('Session stream', { exact: true });
  await video.scrollIntoViewIfNeeded();
  const box = await video.boundingBox();
  const size = await video.evaluate((v: HTMLVideoElement) => ({ w: v.videoWidth, h: v.videoHeight }));
  if (!box) throw new Error('the video has no box');
  const scale = Math.min(box.width / size.w, box.height / size.h);
  return {
    x: box.x + (box.width - size.w * scale) / 2 + (x + 0.5) * scale,
    y: box.y + (box.height - size.h * scale) / 2 + (y + 0.5) * scale,
  };
}
