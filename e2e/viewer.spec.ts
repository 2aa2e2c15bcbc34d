/**
 * The viewer against the real stack: launch through the wizard, watch the stream, move the pointer, lose the
 * connection and get it back, watch from a second page, and see the session end from elsewhere.
 * Pixels are read back from the <video> and decoded with the application's own marks (streamer/marks.ts).
 */
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { axeViolations } from './support/axe';
import { startStack, type Stack } from './support/stack';
import { marksScript } from './support/whep-test-client';
import { sampleCatalog } from './support/catalogs';

const catalog = sampleCatalog({ width: 640, height: 360, fps: 30 });

interface Look {
  width: number;
  height: number;
  frames: number;
  marks: { frame: number; seq: number } | null;
  pointer: { x: number; y: number } | null;
}

/** What the page's video shows now: its size, frames decoded so far, and the marks read from its pixels. */
async function look(page: Page): Promise<Look | null> {
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
async function expectPlaying(page: Page) {
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

let stack: Stack;
let context: BrowserContext;
let page: Page;
let sessionId = '';
const whepResources: string[] = [];

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser }) => {
  stack = await startStack({ catalog });
  context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  page = await context.newPage();
  page.on('response', (response) => {
    const location = response.headers().location;
    if (response.request().method() === 'POST' && response.url().includes('/whep') && location) {
      whepResources.push(new URL(location, response.url()).toString());
    }
  });
});

test.afterAll(async () => {
  try {
    await context?.close();
  } finally {
    // Always, even when closing the browser side failed: the service owns the applications.
    await stack?.stop();
  }
});

test('launches through the wizard and plays the stream', async () => {
  await page.goto(`${stack.baseURL}/launch?app=sample&profile=small`);
  await page.getByRole('button', { name: 'Review' }).click();
  await page.getByRole('button', { name: 'Launch' }).click();
  await page.waitForURL(/\/sessions\/[0-9a-f-]{36}$/, { timeout: 30_000 });
  sessionId = new URL(page.url()).pathname.split('/').at(-1) ?? '';
  // evaluate, not a script tag: the portal's Content-Security-Policy rightly refuses inline scripts.
  await page.evaluate(marksScript());
  await expectPlaying(page);
  const now = await look(page);
  expect(now).toMatchObject({ width: 640, height: 360 });
});

test('the pointer over the video shows the square at the matching stream pixel', async () => {
  const box = await page.getByLabel('Session stream', { exact: true }).boundingBox();
  if (!box) throw new Error('the video has no box');
  // The element is wider than 16:9 or taller: find the contained picture as object-fit: contain draws it.
  const scale = Math.min(box.width / 640, box.height / 360);
  const left = box.x + (box.width - 640 * scale) / 2;
  const top = box.y + (box.height - 360 * scale) / 2;
  for (const target of [
    { x: 200, y: 150 },
    { x: 480, y: 90 },
  ]) {
    await page.mouse.move(left + (target.x + 0.5) * scale, top + (target.y + 0.5) * scale, { steps: 3 });
    await expect
      .poll(async () => {
        const p = (await look(page))?.pointer;
        return p ? Math.hypot(p.x - target.x, p.y - target.y) : Infinity;
      })
      .toBeLessThan(3);
  }
  // The application echoes the seq of the last input it applied in its marks.
  await expect.poll(async () => (await look(page))?.marks?.seq ?? 0).toBeGreaterThan(0);
});

test('application messages go both ways and the statistics show the stream', async () => {
  await page.getByLabel('Stage URL').fill('omniverse://example/stage.usd');
  await page.getByRole('button', { name: 'Open stage' }).click();
  const log = page.getByRole('list', { name: 'Message log' });
  await expect(log.getByText('Sent openStageRequest')).toBeVisible();
  await expect(log.getByText('Received openedStageResult')).toBeVisible();
  await page.getByRole('button', { name: 'Query loading state' }).click();
  await expect(log.getByText('Received loadingStateResponse')).toBeVisible();

  await page.keyboard.press('Control+Shift+S');
  const stats = page.getByRole('region', { name: 'Stream statistics' });
  await expect(stats).toBeVisible();
  await expect(stats.locator('[data-stat="Resolution"]')).toHaveText('640x360');
  await expect(stats.locator('[data-stat="Codec"]')).toHaveText('VP8');
  await expect(stats.locator('[data-stat="Candidate"]')).toHaveText('host');
  // The chart has a point per sample; two points make a line.
  await expect
    .poll(
      async () =>
        (await stats
          .getByRole('img', { name: /Bitrate/ })
          .locator('polyline')
          .getAttribute('points')) ?? '',
    )
    .toMatch(/^\S+ \S+/);
  // Every control of the viewer, the overlay and the message log included, has a role and a name.
  expect(await axeViolations(page, { every: true })).toEqual([]);
  await page.keyboard.press('Control+Shift+S');
  await expect(stats).toBeHidden();
});

test('reconnects to playing after the application drops the viewer', async () => {
  const resource = whepResources.at(-1);
  expect(resource).toBeDefined();
  const before = whepResources.length;
  const res = await fetch(resource!, { method: 'DELETE' });
  expect(res.status).toBeLessThan(300);
  await expect(page.getByTestId('player-state')).not.toHaveText('Playing');
  await expect.poll(() => whepResources.length, { timeout: 20_000 }).toBeGreaterThan(before);
  await expectPlaying(page);
});

test('a watch-only page decodes frames too', async ({ browser }) => {
  const watcher = await browser.newPage();
  try {
    await watcher.goto(`${stack.baseURL}/sessions/${sessionId}?mode=watch`);
    await watcher.evaluate(marksScript());
    await expect(watcher.getByRole('heading', { name: 'Watching session' })).toBeVisible();
    await expectPlaying(watcher);
    await expect(watcher.getByRole('button', { name: 'End session' })).toHaveCount(0);
  } finally {
    await watcher.close();
  }
});

test('the viewer says so when the session is ended from elsewhere', async () => {
  const res = await fetch(`${stack.apiURL}/stream/${sessionId}`, { method: 'DELETE' });
  expect(res.status).toBe(204);
  await expect(page.getByText('This session has ended.')).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId('player-state')).toHaveText('Ended');
  // Nothing left to reconnect to.
  await expect(page.getByRole('button', { name: 'Reconnect' })).toBeDisabled();
});
