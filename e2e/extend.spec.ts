/**
 * Extend, against the real stack: a profile whose sessions run 3 minutes and may be extended up to an hour.
 * The viewer counts the end down at once (it is under 5 minutes away), Extend moves it 30 minutes later (the
 * service says so too), and the countdown goes.
 */
import { expect, test } from '@playwright/test';
import { expectPlaying } from './support/video';
import { startStack, type Stack } from './support/stack';
import { marksScript } from './support/whep-test-client';
import { sampleCatalog } from './support/catalogs';

const catalog = sampleCatalog(
  { width: 640, height: 360, fps: 30 },
  { settings: 'lifetime_min: 3, max_lifetime_min: 60' },
);

let stack: Stack;

test.beforeAll(async () => {
  stack = await startStack({ catalog });
});

test.afterAll(async () => {
  await stack?.stop();
});

test('a session near its end counts down, and Extend lets it run 30 minutes longer', async ({ page }) => {
  await page.goto(`${stack.baseURL}/launch?app=sample&profile=small`);
  await page.getByRole('button', { name: 'Review' }).click();
  await page.getByRole('button', { name: 'Launch' }).click();
  await page.waitForURL(/\/sessions\/[0-9a-f-]{36}$/, { timeout: 30_000 });
  const id = new URL(page.url()).pathname.split('/').at(-1) ?? '';
  await page.evaluate(marksScript());
  await expectPlaying(page);

  const read = async () =>
    (await (await page.request.get(`${stack.apiURL}/stream/${id}`)).json()) as {
      ends_at: string;
      latest_end_at: string;
    };
  const before = await read();
  const started = Date.parse(before.latest_end_at) - 60 * 60_000;
  expect(Date.parse(before.ends_at) - started).toBe(3 * 60_000);

  const timer = page.getByRole('timer');
  await expect(timer).toHaveText(/^Ends in [0-3]:\d\d$/);
  await page.getByRole('button', { name: 'Extend' }).click();
  await expect(timer).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Extend' })).toHaveCount(0);

  const after = await read();
  expect(Date.parse(after.ends_at) - Date.parse(before.ends_at)).toBe(30 * 60_000);
  expect(after.latest_end_at).toBe(before.latest_end_at);
  // The stream plays on: an extension changes nothing else.
  await expectPlaying(page);
});
