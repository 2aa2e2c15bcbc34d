/**
 * Links a person pastes or reloads, against the real stack: client routes whose ids and versions hold dots,
 * session links that are malformed or unknown, and launch links with a profile that does not apply or a
 * version with build metadata.
 */
import { expect, test } from '@playwright/test';
import { realisticCatalog } from './support/catalogs';
import { startStack, type Stack } from './support/stack';

let stack: Stack;
test.beforeAll(async () => {
  stack = await startStack({ catalog: realisticCatalog });
});
test.afterAll(async () => {
  await stack?.stop();
});

test('a client route with dots in its last segment reloads to the portal', async ({ page, request }) => {
  await page.goto(`${stack.baseURL}/apps/omni.usd_explorer`);
  await expect(page.getByRole('heading', { level: 1, name: 'USD Explorer' })).toBeVisible();
  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: 'USD Explorer' })).toBeVisible();

  await page.goto(`${stack.baseURL}/apps/omni.usd_explorer/versions/1.2.0`);
  await expect(page.getByRole('region', { name: 'Profiles of version 1.2.0' })).toBeVisible();
  await expect(page.getByText('{"detail"')).toHaveCount(0);

  // A missing file of the build is still a 404, not the portal.
  expect((await request.get(`${stack.baseURL}/assets/missing.js`)).status()).toBe(404);
});

test('a malformed session link says so in words, and an unknown one says it does not exist', async ({
  page,
}) => {
  await page.goto(`${stack.baseURL}/sessions/not-a-uuid`);
  await expect(page.getByRole('alert')).toHaveText(
    /^This is not a session link: “not-a-uuid” is not a session id\./,
  );
  // No viewer behind it: nothing asks the service again.
  await expect(page.getByTestId('player-state')).toHaveCount(0);

  await page.goto(`${stack.baseURL}/sessions/00000000-0000-4000-8000-000000000000`);
  await expect(page.getByTestId('player-state')).toHaveText('Ended');
  await expect(page.getByText(/No session has this id: it does not exist, or it has ended\./)).toHaveCount(1);
  await expect(page.getByText(/Connection lost|Reconnecting/)).toHaveCount(0);
});

test('a launch link with a profile that does not apply is caught before review, in words', async ({
  page,
}) => {
  await page.goto(`${stack.baseURL}/launch?app=omni.usd_explorer&profile=editor-only`);
  await expect(page.getByRole('combobox', { name: 'Profile' })).toHaveAccessibleDescription(
    'Profile editor-only does not apply to USD Explorer 1.2.0; choose one that does.',
  );
  const review = page.getByRole('button', { name: 'Review' });
  await expect(review).toBeDisabled();
  await expect(review).toHaveAccessibleDescription('Fix the profile above to review the launch.');
});

test('a launch link with a + in its version launches that version', async ({ page, request }) => {
  // Written by hand, as a person would paste it: the + is not encoded.
  await page.goto(`${stack.baseURL}/launch?app=omni.usd_explorer&version=1.0.0+build.5&profile=small`);
  await expect(page.getByRole('combobox', { name: 'Version' })).toHaveText('1.0.0+build.5');
  await page.getByRole('button', { name: 'Review' }).click();
  await expect(page.getByRole('table', { name: 'Launch summary' })).toContainText('1.0.0+build.5');
  await page.getByRole('button', { name: 'Launch' }).click();
  await page.waitForURL(/\/sessions\/[0-9a-f-]{36}$/, { timeout: 30_000 });
  const id = new URL(page.url()).pathname.split('/').at(-1);
  const session = await request.get(`${stack.apiURL}/stream/${id}`);
  expect(await session.json()).toMatchObject({ app: 'omni.usd_explorer', version: '1.0.0+build.5' });
  expect((await request.delete(`${stack.apiURL}/stream/${id}`)).status()).toBe(204);
});
