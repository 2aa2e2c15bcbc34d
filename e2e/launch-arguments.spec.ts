/**
 * Declared launch arguments (CONTRACT §20) end to end: the wizard builds Model Viewer's "Model" field from the
 * repository catalog's declaration, sends the choice, and the session says it was started with it; its viewer
 * offers no USD stage controls, since F3D opens no stage.
 */
import { expect, test } from '@playwright/test';
import { repositoryCatalog } from '../test-support/service';
import { startStack, type Stack } from './support/stack';

let stack: Stack;

test.beforeAll(async () => {
  // The repository's catalog.yaml: Model Viewer declares `model`, a choice of two models.
  stack = await startStack(repositoryCatalog());
});

test.afterAll(async () => {
  await stack?.stop();
});

test('launches Model Viewer with the model chosen in the wizard', async ({ page }) => {
  await page.goto(`${stack.baseURL}/launch?app=model-viewer&profile=default`);
  const model = page.getByRole('combobox', { name: 'Model' });
  await expect(model).toHaveText('torus-knot.obj');
  await expect(page.getByRole('textbox', { name: 'USD stage URI' })).toHaveCount(0);
  await model.click();
  await page.getByRole('option', { name: 'icosphere.obj' }).click();
  await expect(model).toHaveText('icosphere.obj');

  await page.getByRole('button', { name: 'Review' }).click();
  await expect(page.getByRole('row', { name: 'Model icosphere.obj' })).toBeVisible();
  await page.getByRole('button', { name: 'Launch' }).click();
  await expect(page).toHaveURL(/\/sessions\/[0-9a-f-]{36}$/, { timeout: 30_000 });
  const id = new URL(page.url()).pathname.split('/').pop()!;

  const session = await page.request.get(`${stack.apiURL}/stream/${id}`);
  expect(session.status(), await session.text()).toBeLessThan(300);
  expect(await session.json()).toMatchObject({ app: 'model-viewer', arguments: { model: 'icosphere.obj' } });

  // F3D opens no USD stage: its viewer offers no stage controls, only the message log.
  await expect(page.getByRole('list', { name: 'Message log' })).toBeVisible({ timeout: 30_000 });
  await expect(page.getByLabel('Stage URL')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Query loading state' })).toHaveCount(0);

  const ended = await page.request.delete(`${stack.apiURL}/stream/${id}`);
  expect(ended.status()).toBe(204);
});
