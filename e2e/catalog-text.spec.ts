/**
 * Catalog text is data, never markup: an application whose name and description hold HTML and a script is
 * shown as those literal characters on the catalog page, the application page and the launch review, and
 * nothing in it runs or becomes an element.
 */
import { expect, test, type Page } from '@playwright/test';
import { startStack, type Stack } from './support/stack';

const payload = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>';
const name = `Hostile ${payload}`;
// YAML single quotes: the text goes through the service exactly as written.
const quoted = (text: string) => `'${text.replaceAll("'", "''")}'`;
const catalog = `
applications:
  - id: hostile
    name: ${quoted(name)}
    description: ${quoted(payload)}
    tags: [test]
    versions:
      - { version: 1.0.0, description: ${quoted(payload)} }
profiles:
  - id: small
    name: Small
    description: ${quoted(`Small ${payload}`)}
    applications: [{ id: '*', versions: ['*'] }]
    settings: { width: 320, height: 180, fps: 15 }
`;

/** Nothing of the payload became an element or ran. */
async function expectInert(page: Page) {
  await expect(page.locator('img[src="x"], img[onerror]')).toHaveCount(0);
  expect(
    await page
      .locator('script')
      .evaluateAll((s) => s.filter((e) => e.textContent?.includes('__pwned')).length),
  ).toBe(0);
  expect(await page.evaluate(() => (window as { __pwned?: unknown }).__pwned)).toBeUndefined();
}

test.describe('catalog text', () => {
  let stack: Stack;
  test.beforeAll(async () => {
    stack = await startStack({ catalog });
  });
  test.afterAll(async () => {
    await stack?.stop();
  });

  test('an application name and description holding HTML and a script are shown as text', async ({
    page,
  }) => {
    // Any error on the page (a script the payload injected that failed, say) fails the test too.
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));

    await page.goto(`${stack.baseURL}/apps`);
    const list = page.getByRole('region', { name: 'Applications' });
    await expect(list.getByRole('article')).toHaveCount(1);
    await expect(list.getByRole('link', { name, exact: true })).toBeVisible();
    await expect(list.getByText(payload, { exact: true })).toBeVisible();
    await expectInert(page);

    await list.getByRole('link', { name, exact: true }).click();
    await expect(page).toHaveURL(/\/apps\/hostile$/);
    await expect(page.getByRole('heading', { name, exact: true })).toBeVisible();
    await expect(page.getByText(payload, { exact: true }).first()).toBeVisible();
    await expect(page.getByText(`Small ${payload}`, { exact: true }).first()).toBeVisible();
    await expectInert(page);

    await page.goto(`${stack.baseURL}/launch?app=hostile&profile=small`);
    await page.getByRole('button', { name: 'Review' }).click();
    await expect(page.getByRole('table', { name: 'Launch summary' })).toContainText(`${name} (hostile)`);
    await expectInert(page);
    expect(errors).toEqual([]);
  });
});
