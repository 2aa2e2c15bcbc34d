/**
 * An application's picture, from end to end: `npm run pictures` (scripts/app-pictures.ts) takes one of the
 * application running, through a real session and viewer, beside the catalog; with `picture:` in the catalog
 * the service serves it as it serves icons, the API gives its address, and the catalog's card and the
 * application's page show it.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, test, type Locator } from '@playwright/test';
import { PICTURE, takeAppPictures } from '../scripts/app-pictures';
import type { Service } from '../test-support/service';
import { axeViolations } from './support/axe';
import { asStack, startE2eService, type Stack } from './support/stack';

const icon = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8"><rect width="8" height="8"/></svg>';

/** One application of the sample application, with `picture` lines when given. */
const catalogWith = (picture = '') => `
applications:
  - id: pictured-app
    name: Pictured App
    description: The sample application, pictured running.
    icon: icons/pictured.svg
${picture}    versions: [{ version: 1.0.0 }]
profiles:
  - id: small
    name: Small
    description: Starts at 640x360 and follows the window up to 1280x720.
    applications: [{ id: '*', versions: ['*'] }]
    settings: { width: 640, height: 360, fps: 30, max_width: 1280, max_height: 720 }
`;

let service: Service;
let stack: Stack;

test.beforeAll(async () => {
  service = await startE2eService({ catalog: catalogWith(), written: { 'icons/pictured.svg': icon } });
  stack = asStack(service);
});

test.afterAll(async () => {
  await service?.close();
});

/** The natural size of an <img> once it has loaded; 0x0 before, or when it cannot. */
function naturalSize(img: Locator): Promise<string> {
  return img.evaluate((el) => {
    const image = el as HTMLImageElement;
    return image.complete ? `${image.naturalWidth}x${image.naturalHeight}` : '0x0';
  });
}

test('a picture taken of the application running shows on its card and its page', async ({
  browser,
  page,
  request,
}) => {
  test.setTimeout(120_000);
  const catalogFile = path.join(service.workDir, 'catalog.yaml');
  const lines: string[] = [];
  const { taken, failed } = await takeAppPictures(browser, stack, catalogFile, (line) => lines.push(line));
  expect(failed, lines.join('\n')).toEqual([]);
  const file = path.join(service.workDir, 'pictures', 'pictured-app.webp');
  expect(taken).toEqual([{ id: 'pictured-app', file, key: 'pictures/pictured-app.webp' }]);
  const bytes = await readFile(file);
  expect(bytes.subarray(0, 4).toString('latin1')).toBe('RIFF');
  expect(bytes.subarray(8, 12).toString('latin1')).toBe('WEBP');
  // Its session has ended: nothing of it holds a GPU.
  await expect
    .poll(
      async () =>
        ((await (await request.get(`${stack.apiURL}/admin/capacity`)).json()) as { running: number }).running,
    )
    .toBe(0);

  // The key the script printed, in the catalog; the service reads it at start.
  await service.writeCatalog(catalogWith('    picture: pictures/pictured-app.webp\n'));
  await service.stop();
  await service.restart();

  const served = await request.get(`${stack.baseURL}/catalog-pictures/pictures/pictured-app.webp`);
  expect(served.status()).toBe(200);
  expect(served.headers()['content-type']).toBe('image/webp');
  expect(Buffer.compare(await served.body(), bytes)).toBe(0);
  const iconServed = await request.get(`${stack.baseURL}/catalog-icons/icons/pictured.svg`);
  expect(served.headers()['cache-control']).toBe(iconServed.headers()['cache-control']);
  const app = await request.get(`${stack.apiURL}/cfg/apps/pictured-app`);
  expect(await app.json()).toMatchObject({
    icon: '/catalog-icons/icons/pictured.svg',
    picture: '/catalog-pictures/pictures/pictured-app.webp',
  });

  await page.goto(`${stack.baseURL}/apps`);
  const card = page.getByRole('article', { name: 'Pictured App' });
  const picture = card.locator('img');
  await expect(picture).toHaveAttribute(
    'src',
    `${stack.baseURL}/catalog-pictures/pictures/pictured-app.webp`,
  );
  await expect.poll(() => naturalSize(picture)).toBe(`${PICTURE.width}x${PICTURE.height}`);
  // Shown 16:9, the card's width wide.
  const box = await picture.boundingBox();
  expect(Math.abs((box?.width ?? 0) / (box?.height ?? 1) - 16 / 9)).toBeLessThan(0.02);
  // The application, not an empty frame: the sample application's scene has many colours.
  const colours = await picture.evaluate((el) => {
    const canvas = document.createElement('canvas');
    canvas.width = 64;
    canvas.height = 36;
    const ctx = canvas.getContext('2d', { willReadFrequently: true });
    ctx?.drawImage(el as HTMLImageElement, 0, 0, 64, 36);
    const data = ctx?.getImageData(0, 0, 64, 36).data ?? new Uint8ClampedArray();
    const seen = new Set<number>();
    for (let i = 0; i < data.length; i += 4)
      seen.add(((data[i] ?? 0) << 16) | ((data[i + 1] ?? 0) << 8) | (data[i + 2] ?? 0));
    return seen.size;
  });
  expect(colours).toBeGreaterThan(20);
  expect(await axeViolations(page, { every: true })).toEqual([]);

  await card.getByRole('link', { name: 'Pictured App', exact: true }).click();
  const large = page.getByRole('img', { name: 'Pictured App running in Streamgate' });
  await expect.poll(() => naturalSize(large)).toBe(`${PICTURE.width}x${PICTURE.height}`);
  expect(await axeViolations(page, { every: true })).toEqual([]);
});
