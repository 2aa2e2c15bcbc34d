/**
 * The repository's own OpenGL programs in their sandboxes (CONTRACT section 17): F3D reads its model from the
 * catalog's `files` and draws it, glxgears animates, each in the portal's viewer from real decoded frames, with no
 * network and as a user of its own.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { repositoryCatalog } from '../test-support/service';
import { startStack, type Stack } from './support/stack';
import { readVideo } from './support/video';

let stack: Stack;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  // The repository's catalog.yaml: its Model Viewer names `files: [models]` beside it.
  stack = await startStack(repositoryCatalog());
});

test.afterAll(async () => {
  await stack?.stop();
});

/** What the viewer's video shows now: its colours, few for a blank screen, and a digest of its pixels. */
async function picture(page: Page): Promise<{ colours: number; digest: number } | null> {
  return readVideo(page, ({ data }) => {
    const colours = new Set<number>();
    let digest = 0;
    for (let i = 0; i < data.length; i += 4) {
      // Coarse colours, so that the encoder's noise does not count.
      colours.add(
        ((data[i] as number) >> 4) * 256 +
          ((data[i + 1] as number) >> 4) * 16 +
          ((data[i + 2] as number) >> 4),
      );
      digest =
        (digest * 31 + (data[i] as number) + (data[i + 1] as number) * 7 + (data[i + 2] as number) * 13) | 0;
    }
    return { colours: colours.size, digest };
  });
}

/** Launches `app` with the default profile through the API and opens its viewer. */
async function watch(page: Page, app: string, args: Record<string, unknown> = {}): Promise<string> {
  const created = await page.request.post(`${stack.apiURL}/stream`, {
    data: { id: app, profile: 'default', arguments: args },
  });
  expect(created.status(), await created.text()).toBeLessThan(300);
  const { id } = (await created.json()) as { id: string };
  await page.goto(`${stack.baseURL}/sessions/${id}`);
  return id;
}

test('F3D reads its model from the catalog’s files and draws it in its sandbox', async ({ page }) => {
  const id = await watch(page, 'model-viewer', { model: 'icosphere.obj' });
  // A drawn model and grid on F3D's background: many colours, where a blank or failed window has a handful.
  await expect.poll(async () => (await picture(page))?.colours ?? 0, { timeout: 30_000 }).toBeGreaterThan(40);
  const session = await page.request.get(`${stack.apiURL}/stream/${id}`);
  expect(session.status()).toBe(200);
  // It found its model: F3D says on its error output (the session's log) when a file does not exist.
  const log = readFileSync(path.join(stack.dataDir, 'state', 'logs', `${id}.log`), 'utf8');
  expect(log).toContain('f3d mapped its first window');
  expect(log).not.toMatch(/does not exist/);
  await page.request.delete(`${stack.apiURL}/stream/${id}`);
});

test('glxgears renders with OpenGL in its sandbox, and its picture moves', async ({ page }) => {
  const id = await watch(page, 'gears');
  await expect.poll(async () => (await picture(page))?.colours ?? 0, { timeout: 30_000 }).toBeGreaterThan(8);
  const first = await picture(page);
  await expect.poll(async () => (await picture(page))?.digest, { timeout: 10_000 }).not.toBe(first?.digest);
  await page.request.delete(`${stack.apiURL}/stream/${id}`);
});
