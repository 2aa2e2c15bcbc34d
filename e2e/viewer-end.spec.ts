/**
 * The end of a session seen by the person who ends it, against the real stack: the page says who ended it
 * (the stream's end makes the viewer ask the service again, which by then answers 404), and nothing that was
 * about the stream stays over the stage.
 */
import { expect, test } from '@playwright/test';
import { expectPlaying } from './support/video';
import { startStack, type Stack } from './support/stack';
import { marksScript } from './support/whep-test-client';
import { sampleCatalog } from './support/catalogs';

const catalog = sampleCatalog({ width: 640, height: 360, fps: 30 });

let stack: Stack;

test.beforeAll(async () => {
  stack = await startStack({ catalog });
});

test.afterAll(async () => {
  await stack?.stop();
});

test('ending your own session says so, offers to launch again, and clears the stage', async ({ page }) => {
  await page.goto(`${stack.baseURL}/launch?app=sample&profile=small`);
  await page.getByRole('button', { name: 'Review' }).click();
  await page.getByRole('button', { name: 'Launch' }).click();
  await page.waitForURL(/\/sessions\/[0-9a-f-]{36}$/, { timeout: 30_000 });
  await page.evaluate(marksScript());
  await expectPlaying(page);

  // The keyboard given to the application, and the statistics shown: both are about the stream.
  await page.getByLabel('Session stream', { exact: true }).focus();
  const hint = page.getByRole('status', { name: 'Keyboard' });
  await expect(hint).toHaveText('Press Esc to release the keyboard');
  await page.getByRole('button', { name: 'Show statistics' }).click();
  await expect(page.getByRole('region', { name: 'Stream statistics' })).toBeVisible();

  await page.getByRole('button', { name: 'End session' }).click();
  const dialog = page.getByRole('dialog', { name: 'End this session?' });
  await expect(dialog).toContainText('Sample Viewer 1.0.0 (Small) will be stopped');
  await dialog.getByRole('button', { name: 'End session' }).click();

  await expect(page.getByText('You ended this session.')).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId('player-state')).toHaveText('Ended');
  await expect(page.getByText(/No session has this id/)).toHaveCount(0);
  await expect(page.getByRole('link', { name: 'Launch again' })).toHaveAttribute(
    'href',
    /\/launch\?app=sample&version=1\.0\.0&profile=small$/,
  );
  for (const name of ['Show statistics', 'Hide statistics', 'Fullscreen', 'End session'])
    await expect(page.getByRole('button', { name })).toHaveCount(0);
  await expect(page.getByRole('region', { name: 'Stream statistics' })).toHaveCount(0);
  await expect(hint).toHaveCount(0);
});
