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

/** What the page's video shows now: its size, frames decoded so far, and the marks read from its pixels. */
export async function look(page: Page): Promise<Look | null> {
  return page.evaluate(() => {
    const video = document.querySelector('video');
    if (!video || video.videoWidth === 0) return null;
    const canvas = document.createElement('canvas');
    canvas.width = video.videoWidth;
    canvas.height = video.videoHeight;
    const ctx = canvas.getContext('2d', { willReadFrequently: true });
    if (!ctx) return null;
    ctx.drawImage(video, 0, 0);
    const image = ctx.getImageData(0, 0, canvas.width, canvas.height);
    type Reader = {
      decodeMarks(i: ImageData): { frame: number; seq: number } | null;
      findPointer(i: ImageData): { x: number; y: number } | null;
    };
    const reader = (window as unknown as { streamgateMarks: Reader }).streamgateMarks;
    return {
      width: canvas.width,
      height: canvas.height,
      frames: video.getVideoPlaybackQuality().totalVideoFrames,
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
