/**
 * The viewer against the real stack: launch through the wizard, watch the stream, move the pointer, lose the
 * connection and get it back, watch from a second page, and see the session end from elsewhere.
 * Pixels are read back from the <video> and decoded with the application's own marks (streamer/sample/marks.ts).
 */
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { expectPlaying, look } from './support/video';
import { axeViolations } from './support/axe';
import { startStack, type Stack } from './support/stack';
import { marksScript } from './support/whep-test-client';
import { sampleCatalog } from './support/catalogs';

const catalog = sampleCatalog({ width: 640, height: 360, fps: 30 });

let stack: Stack;
let context: BrowserContext;
let page: Page;
let sessionId = '';
/** Each viewer resource the page made, with the ticket it was made with (only that ticket may delete it). */
const whepResources: { url: string; authorization: string }[] = [];

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser }) => {
  stack = await startStack({ catalog });
  context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  page = await context.newPage();
  page.on('response', (response) => {
    const location = response.headers().location;
    if (response.request().method() === 'POST' && response.url().includes('/whep') && location) {
      whepResources.push({
        url: new URL(location, response.url()).toString(),
        authorization: response.request().headers().authorization ?? '',
      });
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
  // Named by what runs, from the service's session fields and the catalog's names.
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Sample Viewer 1.0.0 (Small)');
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

test('keys reach the application until Escape releases the keyboard, then Tab moves on', async () => {
  const video = page.getByLabel('Session stream', { exact: true });
  const hint = page.getByRole('status', { name: 'Keyboard' });
  await video.focus();
  await expect(hint).toHaveText('Press Esc to release the keyboard');
  const before = (await look(page))?.marks?.seq ?? 0;
  await page.keyboard.press('Tab');
  await page.keyboard.press('Shift+Tab');
  await expect(video).toBeFocused();
  // The application echoes the seq of the last input it applied: both Tabs reached it, down and up.
  await expect.poll(async () => (await look(page))?.marks?.seq ?? 0).toBeGreaterThanOrEqual(before + 4);

  await page.keyboard.press('Escape');
  await expect(hint).toHaveText(/Keyboard released/);
  await page.keyboard.press('Tab');
  await expect(page.getByRole('button', { name: 'Share a watch-only link' })).toBeFocused();
  await expect(hint).toBeHidden();

  // Coming back captures again; Escape then lets Shift+Tab leave backwards.
  await page.keyboard.press('Shift+Tab');
  await expect(video).toBeFocused();
  await expect(hint).toHaveText('Press Esc to release the keyboard');
  await page.keyboard.press('Escape');
  await page.keyboard.press('Shift+Tab');
  await expect(page.getByRole('button', { name: 'End session' })).toBeFocused();
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
  // A stranger cannot drop the viewer; the ticket that made it can.
  expect((await fetch(resource!.url, { method: 'DELETE' })).status).toBe(401);
  expect(resource!.authorization).toMatch(/^Bearer /);
  const res = await fetch(resource!.url, {
    method: 'DELETE',
    headers: { authorization: resource!.authorization },
  });
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
    await expect(watcher.getByRole('heading', { level: 1 })).toHaveText(
      'Watching Sample Viewer 1.0.0 (Small)',
    );
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
  // Nothing left to reconnect to, end, capture or send to; the name of what ran and the log stay.
  for (const name of ['Reconnect', 'Disconnect', 'End session', 'Lock pointer', 'Open stage'])
    await expect(page.getByRole('button', { name })).toHaveCount(0);
  await expect(page.getByLabel('Stage URL')).toHaveCount(0);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Sample Viewer 1.0.0 (Small)');
  await expect(page.getByRole('list', { name: 'Message log' })).toContainText('openedStageResult');
});
