/**
 * What a profile says is what streams, with the tests' catalog (test-support/catalog.yaml): "Light" starts at
 * 640x360 and follows the window up to 1280x720, as its description says; "Factory Floor" stays at its fixed
 * 640x360 whatever the window asks. And what admins see of it at /admin/profiles: which profiles apply, in words,
 * without a failed request, and a Try that plays a version with a profile until its first frame.
 */
import { expect, test, type BrowserContext, type Locator, type Page } from '@playwright/test';
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

/** The cell of the availability table in the row of `version` (its header starts so) and the column of `profile`. */
async function cell(table: Locator, version: string, profile: string): Promise<Locator> {
  await expect(table).toBeVisible();
  const columns = await table.getByRole('columnheader').allTextContents();
  const index = columns.findIndex((text) => text.startsWith(profile));
  expect(index, `a column for ${profile} in ${columns.join(' | ')}`).toBeGreaterThan(0);
  const row = table.getByRole('row').filter({
    has: table
      .page()
      .getByRole('rowheader', { name: new RegExp(`^${version.replaceAll('.', '\\.')}(?![\\d.+-])`) }),
  });
  return row.locator('th, td').nth(index);
}

test('admins see which profiles apply in words, with no failed request, and a Try times the first frame', async () => {
  test.setTimeout(120_000);
  // The sessions of the tests above hold both GPUs: a Try behind them would wait in the queue.
  const running = (await (await context.request.get(`${stack.apiURL}/stream`)).json()) as {
    items: { id: string }[];
  };
  for (const { id } of running.items) await context.request.delete(`${stack.apiURL}/stream/${id}`);
  const page = await context.newPage();
  const failed: string[] = [];
  page.on('response', (response) => {
    if (response.status() >= 400)
      failed.push(`${response.status()} ${response.request().method()} ${response.url()}`);
  });
  await page.goto(`${stack.baseURL}/admin/profiles`);
  const table = page.getByRole('table', { name: 'Profile availability' });
  // Before any Try a cell says the catalog applies the profile, and that it is untested.
  await expect(await cell(table, 'USD Viewer 1.2.0', 'Default')).toContainText('appliesnot tried yet');
  // RTX Review is for USD Composer and two versions of USD Viewer only.
  await expect(await cell(table, 'USD Viewer 1.2.0', 'RTX Review')).toHaveText('does not apply');
  await expect(await cell(table, 'USD Viewer 1.10.0', 'RTX Review')).toContainText('applies');
  await expect(await cell(table, 'Terminal 379.0.0', 'Factory Floor')).toHaveText('does not apply');

  const tried = await cell(table, 'USD Viewer 1.2.0', 'Default');
  await table.getByRole('button', { name: 'Try USD Viewer 1.2.0 with Default' }).click();
  await expect(page.getByRole('status', { name: 'Try in progress' })).toContainText(
    'Trying USD Viewer 1.2.0 with Default',
  );
  await expect(tried).toContainText(/first frame in \d+ ms, just now/, { timeout: 60_000 });
  // A success is green, with a tick.
  await expect(tried.locator('.MuiChip-colorSuccess')).toHaveText('works');
  // The Try ended its session: nothing of it runs on.
  await expect
    .poll(
      async () =>
        ((await (await page.request.get(`${stack.apiURL}/stream`)).json()) as { count: number }).count,
    )
    .toBe(0);
  // The outcome is this browser's: it is still there when the page opens again.
  await page.reload();
  await expect(await cell(table, 'USD Viewer 1.2.0', 'Default')).toContainText(/first frame in \d+ ms/);
  expect(failed).toEqual([]);
  await page.close();
});
