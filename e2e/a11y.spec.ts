/** Accessibility: axe on every page of the portal (light and dark), no serious or critical violation. */
import { expect, test, type Page } from '@playwright/test';
import { axeViolations } from './support/axe';
import { smallProfiles } from './support/catalogs';
import { startStack, type Stack } from './support/stack';

const catalog = `
applications:
  - id: sample-viewer
    name: Sample Viewer
    description: The sample streaming application.
    tags: [viewer, test]
    versions:
      - { version: 1.0.0, description: First. }
      - { version: 1.1.0-beta.1, description: Preview. }${smallProfiles}`;

const pages: { name: string; path: string; ready: (page: Page) => Promise<void> }[] = [
  {
    name: 'catalog',
    path: '/',
    ready: (p) => expect(p.getByRole('link', { name: 'Sample Viewer', exact: true })).toBeVisible(),
  },
  {
    name: 'application',
    path: '/apps/sample-viewer',
    ready: (p) => expect(p.getByRole('link', { name: /^Launch sample-viewer/ })).toBeVisible(),
  },
  {
    name: 'launch wizard',
    path: '/launch?app=sample-viewer&profile=small',
    ready: (p) => expect(p.getByRole('combobox', { name: 'Version' })).toHaveText('latest (1.0.0)'),
  },
  {
    name: 'launch error',
    path: '/launch?app=bad%20id',
    ready: (p) =>
      expect(p.getByRole('combobox', { name: 'Application' })).toHaveAttribute('aria-invalid', 'true'),
  },
  { name: 'sessions', path: '/sessions', ready: (p) => expect(p.getByText(/No sessions/)).toBeVisible() },
  {
    name: 'profile availability',
    path: '/admin/profiles',
    ready: (p) => expect(p.getByRole('table', { name: 'Profile availability' })).toBeVisible(),
  },
  {
    name: 'settings',
    path: '/settings',
    ready: (p) => expect(p.getByRole('textbox', { name: 'Catalog URL' })).toBeVisible(),
  },
  {
    name: 'viewer of a session that does not exist',
    path: '/sessions/00000000-0000-4000-8000-000000000000',
    // The viewer's own chunk has loaded once the page's loading indicator is gone and its answer is shown.
    ready: async (p) => {
      await expect(p.getByRole('progressbar', { name: 'Loading page' })).toHaveCount(0);
      await expect(
        p
          .getByRole('main')
          .getByText(/no longer exists|not found|ended/i)
          .first(),
      ).toBeVisible();
    },
  },
  {
    name: 'unknown address',
    path: '/no-such-page',
    ready: (p) => expect(p.getByRole('heading', { name: 'Page not found' })).toBeVisible(),
  },
];

test.describe('accessibility', () => {
  let stack: Stack;
  test.beforeAll(async () => {
    stack = await startStack({ catalog });
  });
  test.afterAll(async () => {
    await stack?.stop();
  });

  for (const theme of ['light', 'dark'] as const) {
    test(`every page in the ${theme} theme`, async ({ page }) => {
      await page.addInitScript((t) => localStorage.setItem('streamgate.theme', t), theme);
      for (const p of pages) {
        await page.goto(`${stack.baseURL}${p.path}`);
        await p.ready(page);
        expect(await axeViolations(page), `${p.name} (${p.path})`).toEqual([]);
      }
    });
  }

  test('keyboard only: skip to the content, open an application, launch through the wizard', async ({
    page,
  }) => {
    await page.goto(`${stack.baseURL}/`);
    await expect(page.getByRole('link', { name: 'Sample Viewer', exact: true })).toBeVisible();
    await page.keyboard.press('Tab');
    await expect(page.getByRole('link', { name: 'Skip to content' })).toBeFocused();
    await page.keyboard.press('Enter');
    const target = page.getByRole('link', { name: 'Sample Viewer', exact: true });
    for (let i = 0; i < 20 && !(await target.evaluate((el) => el === document.activeElement)); i++) {
      await page.keyboard.press('Tab');
    }
    await expect(target).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(/\/apps\/sample-viewer$/);
    const launch = page.getByRole('link', { name: /^Launch sample-viewer/ });
    await launch.focus();
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(/\/launch\?app=sample-viewer/);
    const review = page.getByRole('button', { name: 'Review' });
    await review.focus();
    await page.keyboard.press('Enter');
    await expect(page.getByRole('table', { name: 'Launch summary' })).toBeVisible();
  });

  test('the launch review step and a phone-sized screen', async ({ page }) => {
    await page.setViewportSize({ width: 375, height: 740 });
    await page.goto(`${stack.baseURL}/launch?app=sample-viewer&profile=small`);
    await page.getByRole('button', { name: 'Review' }).click();
    await expect(page.getByRole('table', { name: 'Launch summary' })).toBeVisible();
    expect(await axeViolations(page)).toEqual([]);
    await page.goto(`${stack.baseURL}/`);
    await expect(page.getByRole('link', { name: 'Sample Viewer', exact: true })).toBeVisible();
    expect(await axeViolations(page)).toEqual([]);
    // Nothing wider than the phone: the page must not scroll sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  });
});
