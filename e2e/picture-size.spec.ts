/**
 * The viewer's picture size and latency, against the real stack: the stream follows the window up to the
 * profile's maximum; a person who chooses a smaller picture gets a smaller stream at once, and keeps that
 * choice after a reload; the round trip is in sight beside the player's state.
 */
import { expect, test, type Page } from '@playwright/test';
import { sampleCatalog } from './support/catalogs';
import { startRunningSession } from './support/sessions';
import { startStack, type Stack } from './support/stack';

const catalog = sampleCatalog({ width: 640, height: 360, fps: 30, maxWidth: 1280, maxHeight: 720 });

let stack: Stack;
test.beforeAll(async () => {
  stack = await startStack({ catalog });
});
test.afterAll(async () => {
  await stack?.stop();
});
test.use({ viewport: { width: 1100, height: 900 } });

const streamSize = (page: Page) =>
  page.evaluate(() => {
    const video = document.querySelector('video');
    return { width: video?.videoWidth ?? 0, height: video?.videoHeight ?? 0 };
  });

test('a smaller picture chosen in the viewer makes the stream smaller at once, and is kept', async ({
  page,
  request,
}) => {
  test.setTimeout(90_000);
  const session = await startRunningSession(request, stack.apiURL, 'sample');
  await page.goto(`${stack.baseURL}/sessions/${session}`);
  await expect(page.getByTestId('player-state')).toHaveText('Playing', { timeout: 20_000 });
  const stageAt = async () => (await page.locator('video').boundingBox())?.y;
  const playingAt = await stageAt();
  // Fit the window: the stage is about 1050 pixels wide, more than the profile's first 640.
  await expect.poll(async () => (await streamSize(page)).width, { timeout: 15_000 }).toBeGreaterThan(900);
  // On loopback the round trip is a few milliseconds: good.
  await expect(page.getByText(/^Latency \d+ ms$/)).toBeVisible();
  await expect(page.locator('[data-level]')).toHaveAttribute('data-level', 'good');
  // The figure's coming moved nothing: a pointer aimed at the picture still lands where it was aimed.
  expect(await stageAt()).toBe(playingAt);

  await page.getByRole('button', { name: 'Picture size' }).click();
  const menu = page.getByRole('menu');
  await expect(menu.getByRole('menuitemradio', { name: 'Fit the window' })).toHaveAttribute(
    'aria-checked',
    'true',
  );
  await menu.getByRole('menuitemradio', { name: 'Up to 360p (saves data)' }).click();
  // Within 640x360, the stage's shape kept.
  await expect.poll(async () => (await streamSize(page)).height, { timeout: 15_000 }).toBe(360);
  expect((await streamSize(page)).width).toBeLessThanOrEqual(640);

  // This browser keeps it: after a reload the stream is asked for at that size from the start.
  await page.reload();
  await expect(page.getByTestId('player-state')).toHaveText('Playing', { timeout: 20_000 });
  await page.getByRole('button', { name: 'Picture size' }).click();
  await expect(
    page.getByRole('menu').getByRole('menuitemradio', { name: 'Up to 360p (saves data)' }),
  ).toHaveAttribute('aria-checked', 'true');
  await page.keyboard.press('Escape');
  // A while at that size: it does not grow back to the window's.
  await page.waitForTimeout(1_500);
  expect((await streamSize(page)).width).toBeLessThanOrEqual(640);
  expect((await request.delete(`${stack.apiURL}/stream/${session}`)).status()).toBe(204);
});
