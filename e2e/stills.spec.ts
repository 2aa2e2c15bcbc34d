/**
 * Recent stills against the real stack: the sample application's ffmpeg keeps a still of its picture in
 * the service's data directory, the service serves it to the owner, the sessions page shows it (on a
 * desktop and on a phone), and ending the session removes the file.
 */
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { sampleCatalog } from './support/catalogs';
import { startStack, type Stack } from './support/stack';
import { expectPlaying } from './support/video';
import { marksScript } from './support/whep-test-client';

const catalog = sampleCatalog({ width: 640, height: 360, fps: 30 });
const alt = 'Recent picture of sample 1.0.0 (small)';

let stack: Stack;
let sessionId = '';

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  stack = await startStack({ catalog });
});

test.afterAll(async () => {
  await stack?.stop();
});

/** The still's file in the service's data directory (STREAMGATE_DATA_DIR is `<dataDir>/state`). */
const stillFile = () => path.join(stack.dataDir, 'state', 'stills', `${sessionId}.still`);

/** The image's natural size and how many different colours it has (a few hundred pixels sampled). */
async function picture(image: Locator) {
  return image.evaluate((element) => {
    const img = element as HTMLImageElement;
    const canvas = document.createElement('canvas');
    canvas.width = img.naturalWidth;
    canvas.height = img.naturalHeight;
    const ctx = canvas.getContext('2d', { willReadFrequently: true });
    if (!ctx || img.naturalWidth === 0) return { width: 0, height: 0, colours: 0 };
    ctx.drawImage(img, 0, 0);
    const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
    const colours = new Set<string>();
    for (let i = 0; i < data.length; i += 4 * 97) colours.add(`${data[i]},${data[i + 1]},${data[i + 2]}`);
    return { width: img.naturalWidth, height: img.naturalHeight, colours: colours.size };
  });
}

async function expectStill(page: Page, within: Locator) {
  const image = within.getByRole('img', { name: alt });
  await expect(image).toBeVisible({ timeout: 20_000 });
  await expect(image).toHaveAttribute('src', /^blob:/);
  await expect.poll(async () => (await picture(image)).width, { timeout: 20_000 }).toBe(320);
  const seen = await picture(image);
  expect(seen.height).toBe(180);
  // A real picture, not one flat colour.
  expect(seen.colours).toBeGreaterThan(4);
  // Nothing on the page is a broken image.
  const broken = await page.evaluate(
    () => [...document.images].filter((img) => img.complete && img.naturalWidth === 0).length,
  );
  expect(broken).toBe(0);
}

test('the sessions page shows a recent still of the session that plays', async ({ page }) => {
  await page.setViewportSize({ width: 1100, height: 900 });
  await page.goto(`${stack.baseURL}/launch?app=sample&profile=small`);
  await page.getByRole('button', { name: 'Review' }).click();
  await page.getByRole('button', { name: 'Launch' }).click();
  await page.waitForURL(/\/sessions\/[0-9a-f-]{36}$/, { timeout: 30_000 });
  sessionId = new URL(page.url()).pathname.split('/').at(-1) ?? '';
  await page.evaluate(marksScript());
  await expectPlaying(page);

  // The application keeps it in the service's private directory.
  await expect.poll(() => existsSync(stillFile()), { timeout: 10_000 }).toBe(true);
  expect((await stat(stillFile())).mode & 0o777).toBe(0o600);
  expect((await stat(path.dirname(stillFile()))).mode & 0o777).toBe(0o700);

  await page.goto(`${stack.baseURL}/sessions`);
  const row = page
    .getByRole('row')
    .filter({ has: page.getByRole('button', { name: `Copy session id ${sessionId}` }) });
  await expect(row.getByText('Running', { exact: true })).toBeVisible();
  await expectStill(page, row);
});

test('on a phone the still heads the session card', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${stack.baseURL}/sessions`);
  const card = page
    .getByRole('list', { name: 'Sessions' })
    .getByRole('listitem')
    .filter({ has: page.getByRole('button', { name: `Copy session id ${sessionId}` }) });
  await expectStill(page, card);
  const box = await card.getByRole('img', { name: alt }).boundingBox();
  const cardBox = await card.boundingBox();
  // Within the card: nothing scrolls sideways.
  expect(box && cardBox && box.x + box.width <= cardBox.x + cardBox.width + 0.5).toBe(true);
});

test('the service serves it to the owner only as a PNG, and ending the session removes it', async ({
  request,
}) => {
  const res = await request.get(`${stack.apiURL}/stream/${sessionId}/still`);
  expect(res.status()).toBe(200);
  expect(res.headers()['content-type']).toBe('image/png');
  expect(res.headers()['cache-control']).toBe('no-store');
  expect((await res.body()).subarray(0, 4)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47]));

  expect((await request.delete(`${stack.apiURL}/stream/${sessionId}`)).status()).toBe(204);
  expect(existsSync(stillFile())).toBe(false);
  expect((await request.get(`${stack.apiURL}/stream/${sessionId}/still`)).status()).toBe(404);
});
