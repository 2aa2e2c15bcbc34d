/**
 * What a profile says is what streams, with the repository's own catalog: "Light" starts at 640x360 and
 * follows the window up to 1280x720, as its description says; "Factory Floor" stays at its fixed 640x360
 * whatever the window asks.
 */
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { startStack, type Stack } from './support/stack';
import { expectPlaying, look } from './support/video';
import { marksScript } from './support/whep-test-client';

let stack: Stack;
let context: BrowserContext;

test.beforeAll(async ({ browser }) => {
  stack = await startStack();
  // The video is about 1050 px wide: more than either profile starts at.
  context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
});

test.afterAll(async () => {
  try {
    await context?.close();
  } finally {
    await stack?.stop();
  }
});

/** Opens the wizard on `app` and `profile`, checks the profile's help says `says`, and launches. */
async function launch(app: string, profile: string, says: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${stack.baseURL}/launch?app=${app}&profile=${profile}`);
  await expect(page.getByText(says)).toBeVisible();
  await page.getByRole('button', { name: 'Review' }).click();
  await page.getByRole('button', { name: 'Launch' }).click();
  await page.waitForURL(/\/sessions\/[0-9a-f-]{36}$/, { timeout: 30_000 });
  await page.evaluate(marksScript());
  await expectPlaying(page);
  return page;
}

test('Light follows the window up to the size its description names', async () => {
  const page = await launch(
    'usd-viewer',
    'light',
    'starts at 640x360 and follows your window up to 1280x720',
  );
  await expect.poll(async () => (await look(page))?.width ?? 0, { timeout: 15_000 }).toBeGreaterThan(640);
  const now = await look(page);
  expect(now?.width).toBeLessThanOrEqual(1280);
  expect(now?.height).toBeLessThanOrEqual(720);
});

test('Factory Floor keeps its fixed size when the window asks for more', async () => {
  const page = await launch('factory-explorer', 'factory-floor', 'A fixed 640x360 at 24 fps');
  // The viewer's first input is the size it wants; once the application has applied it, the size shows.
  await expect.poll(async () => (await look(page))?.marks?.seq ?? 0).toBeGreaterThan(0);
  expect(await look(page)).toMatchObject({ width: 640, height: 360 });
});
