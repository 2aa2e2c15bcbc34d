/**
 * The portal on a phone (390x844) against the real stack: the navigation is a menu button with a drawer,
 * lists stack, and no page scrolls sideways.
 */
import { expect, test, type Page } from '@playwright/test';
import { axeViolations } from './support/axe';
import { realisticCatalog } from './support/catalogs';
import { startRunningSession } from './support/sessions';
import { startStack, type Stack } from './support/stack';

test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

let stack: Stack;
test.beforeAll(async () => {
  stack = await startStack({ catalog: realisticCatalog });
});
test.afterAll(async () => {
  await stack?.stop();
});

/**
 * Fails when the page is wider than the screen, or when a part of it (a table in its container, say)
 * scrolls sideways on its own; the message names what is too wide.
 */
async function expectNoSidewaysScroll(page: Page, what: string) {
  const overflow = await page.evaluate(() => {
    const root = document.documentElement;
    const scrollers = [...document.querySelectorAll('body *')]
      .filter((e) => ['auto', 'scroll'].includes(getComputedStyle(e).overflowX))
      .filter((e) => e.scrollWidth > e.clientWidth + 1)
      .map((e) => `${e.outerHTML.slice(0, 160)} (${e.scrollWidth} > ${e.clientWidth})`);
    if (root.scrollWidth <= root.clientWidth && scrollers.length === 0) return null;
    const wide = [...document.querySelectorAll('body *')]
      .filter((e) => e.getBoundingClientRect().right > root.clientWidth + 1)
      .map((e) => e.outerHTML.slice(0, 160));
    return { page: `${root.scrollWidth} > ${root.clientWidth}`, scrollers, wide: wide.slice(-3) };
  });
  expect(overflow, `${what} scrolls sideways`).toBeNull();
}

test('the menu button opens the navigation in a drawer, which closes once a page is chosen', async ({
  page,
}) => {
  await page.goto(`${stack.baseURL}/apps`);
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeHidden();
  await page.getByRole('button', { name: 'Open navigation' }).click();
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByRole('link', { name: 'Catalog' })).toHaveAttribute('aria-current', 'page');
  expect(await axeViolations(page)).toEqual([]);
  await nav.getByRole('link', { name: 'Settings' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible();
  await expect(nav).toBeHidden();
  // The header is one row: the menu button, the name and the theme toggle side by side.
  const menu = await page.getByRole('button', { name: 'Open navigation' }).boundingBox();
  const theme = await page.getByRole('button', { name: /Switch to/ }).boundingBox();
  expect(Math.abs((menu?.y ?? 0) - (theme?.y ?? 100))).toBeLessThan(8);
});

test('no main page scrolls sideways, sessions stack as cards, and axe finds nothing', async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  const session = await startRunningSession(request, stack.apiURL);
  const pages: [string, string, () => Promise<void>][] = [
    [
      'catalog',
      '/apps',
      () => expect(page.getByRole('link', { name: 'USD Explorer', exact: true })).toBeVisible(),
    ],
    [
      'application',
      '/apps/sample-editor?version=2.0.0-rc.1%2Bbuild.20240101',
      () => expect(page.getByRole('link', { name: /^Launch sample-editor/ }).first()).toBeVisible(),
    ],
    [
      'launch',
      '/launch?app=sample-editor&profile=editor-only',
      () => expect(page.getByRole('button', { name: 'Review' })).toBeEnabled(),
    ],
    [
      'sessions',
      '/sessions',
      () => expect(page.getByRole('list', { name: 'Sessions' }).getByRole('listitem')).toHaveCount(1),
    ],
    [
      'profile availability',
      '/admin/profiles',
      () =>
        expect(
          page.getByRole('button', { name: 'Try Sample Editor 2.0.0-rc.1+build.20240101 with Small' }),
        ).toBeVisible({ timeout: 20_000 }),
    ],
    ['settings', '/settings', () => expect(page.getByRole('textbox', { name: 'Catalog URL' })).toBeVisible()],
    [
      'viewer',
      `/sessions/${session}`,
      // Playing: its controls are enabled and done changing colour before axe measures them.
      () => expect(page.getByTestId('player-state')).toHaveText('Playing', { timeout: 20_000 }),
    ],
  ];
  for (const [what, path, ready] of pages) {
    await page.goto(`${stack.baseURL}${path}`);
    await ready();
    await expectNoSidewaysScroll(page, what);
    expect(await axeViolations(page), what).toEqual([]);
  }

  await page.goto(`${stack.baseURL}/launch?app=sample-editor&profile=editor-only`);
  await page.getByRole('button', { name: 'Review' }).click();
  await expect(page.getByRole('table', { name: 'Launch summary' })).toBeVisible();
  await expectNoSidewaysScroll(page, 'launch review');
  expect((await request.delete(`${stack.apiURL}/stream/${session}`)).status()).toBe(204);
});

test.describe('a phone in landscape (844x390)', () => {
  test.use({ viewport: { width: 844, height: 390 }, isMobile: true, hasTouch: true });

  test('the viewer shows the whole picture without scrolling, and asks for a stream of the size shown', async ({
    page,
    request,
  }) => {
    test.setTimeout(90_000);
    const session = await startRunningSession(request, stack.apiURL);
    await page.goto(`${stack.baseURL}/sessions/${session}`);
    await expect(page.getByTestId('player-state')).toHaveText('Playing', { timeout: 20_000 });
    const box = await page.locator('video').boundingBox();
    const toolbar = await page.getByRole('button', { name: 'End session' }).boundingBox();
    console.log(`landscape: video ${JSON.stringify(box)}, End session at ${JSON.stringify(toolbar)}`);
    // Within the screen as the page opens, and most of its height: not low and running off it.
    expect(box!.y).toBeGreaterThanOrEqual(0);
    expect(box!.y + box!.height).toBeLessThanOrEqual(390);
    expect(box!.height).toBeGreaterThan(390 * 0.6);
    // The controls are in reach too, and the state is said.
    await expect(page.getByTestId('player-state')).toBeInViewport();
    expect(toolbar!.y + toolbar!.height).toBeLessThanOrEqual(390);
    await expectNoSidewaysScroll(page, 'viewer in landscape');
    // The stream follows the stage: about its height (times the phone's pixel ratio), not the 546 rows of a
    // stage that ran off the screen.
    await expect
      .poll(async () => page.evaluate(() => document.querySelector('video')?.videoHeight ?? 0), {
        timeout: 20_000,
      })
      .toBeGreaterThan(0);
    expect((await request.delete(`${stack.apiURL}/stream/${session}`)).status()).toBe(204);
  });
});
