/**
 * The portal's own pictures and the applications': the favicon and the app bar's icon load; a catalog
 * `icon` beside the catalog file, or at a URL of another site, shows on its card and page; an application
 * without one, or whose image does not load, gets a monogram of its name.
 */
import { createServer, type Server } from 'node:http';
import { expect, test, type Locator } from '@playwright/test';
import { freePort } from './support/ports';
import { startStack, type Stack } from './support/stack';

/** The catalog, with its linked icon on another site (`site`, another origin than the portal's). */
const catalogWith = (site: string) => `
applications:
  - id: linked-app
    name: Linked App
    description: Its icon is on another site.
    icon: ${site}/linked.svg
    versions: [{ version: 1.0.0 }]
  - id: drawn-app
    name: Drawn App
    description: Its icon sits beside the catalog.
    icon: icons/drawn.svg
    versions: [{ version: 1.0.0 }]
  - id: lost-app
    name: Lost App
    description: Its icon's address answers nothing.
    icon: http://127.0.0.1:9/lost.png
    versions: [{ version: 1.0.0 }]
  - id: plain-app
    name: Plain Viewer
    description: No icon at all.
    versions: [{ version: 1.0.0 }]
profiles:
  - id: small
    name: Small
    description: A fixed 320x180 at 15 fps.
    applications: [{ id: '*', versions: ['*'] }]
    settings: { width: 320, height: 180, fps: 15, max_width: 320, max_height: 180 }
`;

const drawn =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8"><rect width="8" height="8" fill="#e91e63"/></svg>';

let stack: Stack;
let site: Server;

test.beforeAll(async () => {
  const port = await freePort();
  site = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/svg+xml' }).end(drawn));
  await new Promise<void>((resolve) => site.listen(port, '127.0.0.1', resolve));
  // localhost: another origin than the portal's 127.0.0.1, as a CDN would be.
  // The icon file beside the catalog file that the stack writes: the service checks it is there at start.
  stack = await startStack({
    catalog: catalogWith(`http://localhost:${port}`),
    written: { 'icons/drawn.svg': drawn },
  });
});

test.afterAll(async () => {
  try {
    await stack?.stop();
  } finally {
    site?.close();
  }
});

/** Whether an <img> has loaded a picture. */
async function loaded(img: Locator): Promise<boolean> {
  return img.evaluate((el) => (el as HTMLImageElement).complete && (el as HTMLImageElement).naturalWidth > 0);
}

test('the favicon and the app bar icon load', async ({ page, request }) => {
  await page.goto(`${stack.baseURL}/apps`);
  const href = await page.locator('link[rel="icon"]').getAttribute('href');
  const favicon = await request.get(new URL(href ?? '', stack.baseURL).toString());
  expect(favicon.status()).toBe(200);
  expect(favicon.headers()['content-type']).toContain('image/svg+xml');
  const logo = page.getByRole('banner').locator('img');
  await expect.poll(() => loaded(logo)).toBe(true);
});

test('catalog cards show the icon beside the catalog, else a monogram', async ({ page }) => {
  await page.goto(`${stack.baseURL}/apps`);
  const card = (name: string) => page.getByRole('article', { name });
  const icon = card('Drawn App').locator('img');
  await expect(icon).toHaveAttribute('src', `${stack.baseURL}/catalog-icons/icons/drawn.svg`);
  await expect.poll(() => loaded(icon)).toBe(true);
  // The Content-Security-Policy lets in the sites the catalog links icons to.
  await expect.poll(() => loaded(card('Linked App').locator('img'))).toBe(true);
  await expect(card('Plain Viewer').getByTestId('app-monogram')).toHaveText('PV');
  // An image that never arrives gives way to the monogram too.
  await expect(card('Lost App').getByTestId('app-monogram')).toHaveText('LA');
  await expect(card('Lost App').locator('img')).toHaveCount(0);

  await card('Drawn App').getByRole('link', { name: 'Drawn App', exact: true }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Drawn App' })).toBeVisible();
  await expect.poll(() => loaded(page.getByRole('main').locator('img').first())).toBe(true);
});

test('only the icons the catalog names are served', async ({ request }) => {
  expect((await request.get(`${stack.baseURL}/catalog-icons/catalog.yaml`)).status()).toBe(404);
  expect((await request.get(`${stack.baseURL}/catalog-icons/..%2Fcatalog.yaml`)).status()).toBe(404);
});
