/**
 * A person's own model in the repository's Model Viewer (F3D, catalog.yaml `opens`): dropped on the picture it
 * lands in ~/Files, its Open restarts F3D with it on the same display, and the picture becomes the person's model
 * while the viewer stays connected; chosen in the launch wizard ("Open a file of yours"), the session starts with it.
 */
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { repositoryCatalog } from '../test-support/service';
import { startStack, type Stack } from './support/stack';
import { changed, settled, sketch } from './support/video';

let stack: Stack;
let context: BrowserContext;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser }) => {
  stack = await startStack({ ...repositoryCatalog(), env: { STREAMGATE_CAPACITY: '3' } });
  context = await browser.newContext({ viewport: { width: 960, height: 720 } });
});

test.afterAll(async () => {
  try {
    await context?.close();
  } finally {
    await stack?.stop();
  }
});

/** A wide flat box, nothing like the catalog's torus knot: eight corners, six faces, as OBJ text. */
const BOX_OBJ = [
  ...[
    [-3, -1, -0.2],
    [3, -1, -0.2],
    [3, 1, -0.2],
    [-3, 1, -0.2],
    [-3, -1, 0.2],
    [3, -1, 0.2],
    [3, 1, 0.2],
    [-3, 1, 0.2],
  ].map(([x, y, z]) => `v ${x} ${y} ${z}`),
  'f 1 2 3 4',
  'f 5 8 7 6',
  'f 1 5 6 2',
  'f 2 6 7 3',
  'f 3 7 8 4',
  'f 4 8 5 1',
  '',
].join('\n');

async function playing(page: Page) {
  await page.waitForURL(/\/sessions\/[0-9a-f-]{36}$/, { timeout: 30_000 });
  await expect(page.getByTestId('player-state')).toHaveText('Playing', { timeout: 40_000 });
  await expect.poll(async () => (await sketch(page))?.colours ?? 0, { timeout: 30_000 }).toBeGreaterThan(12);
}

async function end(page: Page) {
  const id = new URL(page.url()).pathname.split('/').at(-1);
  await page.close();
  if (id) await fetch(`${stack.apiURL}/stream/${id}`, { method: 'DELETE' });
}

test('a model dropped on the picture opens in the Model Viewer in place of its own', async () => {
  const page = await context.newPage();
  await page.goto(`${stack.baseURL}/apps`);
  await page.getByRole('link', { name: 'Launch Model Viewer' }).click();
  await page.getByRole('button', { name: 'Launch', exact: true }).click();
  await playing(page);
  const knot = await settled(page);

  const transfer = await page.evaluateHandle((text) => {
    const data = new DataTransfer();
    data.items.add(new File([text], 'wide box.obj', { type: 'model/obj' }));
    return data;
  }, BOX_OBJ);
  await page.getByLabel('Session stream', { exact: true }).dispatchEvent('drop', { dataTransfer: transfer });
  const panel = page.getByRole('region', { name: 'Files' });
  await expect(panel.getByText('wide box.obj', { exact: true })).toBeVisible({ timeout: 15_000 });
  await panel.getByRole('button', { name: 'Open wide box.obj' }).click();
  await expect(page.getByText('Opened wide box.obj.')).toBeVisible({ timeout: 20_000 });
  // The same viewer, still playing, now shows the box: a good part of the picture changed.
  await expect.poll(async () => changed(knot, await settled(page)), { timeout: 40_000 }).toBeGreaterThan(0.1);
  await expect(page.getByTestId('player-state')).toHaveText('Playing');
  await end(page);
});

test('a model chosen in the launch wizard is the one the session starts with', async () => {
  const page = await context.newPage();
  await page.goto(`${stack.baseURL}/launch?app=model-viewer`);
  await page.getByLabel('Open a file of yours').setInputFiles({
    name: 'mine.obj',
    mimeType: 'model/obj',
    buffer: Buffer.from(BOX_OBJ),
  });
  await page.getByRole('button', { name: 'Review' }).click();
  await expect(page.getByRole('region', { name: 'Review' }).getByText('mine.obj')).toBeVisible();
  await page.getByRole('button', { name: 'Launch', exact: true }).click();
  await playing(page);
  await expect(page.getByText('Opened mine.obj.')).toBeVisible({ timeout: 40_000 });
  const files = await fetch(`${stack.apiURL}/stream/${new URL(page.url()).pathname.split('/').at(-1)}/files`);
  const listing = (await files.json()) as { items: { name: string; size: number }[] };
  expect(listing.items).toEqual([expect.objectContaining({ name: 'mine.obj', size: BOX_OBJ.length })]);
  await end(page);
});
