/**
 * Settings against the real stack: an address that is not http(s) or a path is refused at its field, and
 * "Test connection" says what really happened: a page that is not the API, a service that refuses this
 * origin (CORS), or no answer at all.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { freePort } from './support/ports';
import { sampleCatalog } from './support/catalogs';
import { startStack, type Stack } from './support/stack';

let stack: Stack;
/** A service on another port of the same host that answers JSON but sends no CORS headers. */
let noCors: Server;
let noCorsURL: string;

test.beforeAll(async () => {
  stack = await startStack({ catalog: sampleCatalog({ width: 320, height: 180, fps: 15 }) });
  noCors = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('{"count": 0, "items": []}');
  });
  await new Promise<void>((resolve) => noCors.listen(0, '127.0.0.1', resolve));
  noCorsURL = `http://127.0.0.1:${(noCors.address() as AddressInfo).port}`;
});
test.afterAll(async () => {
  await new Promise((resolve) => noCors?.close(resolve));
  await stack?.stop();
});

test('a javascript: address is refused at its field, and Save says why it waits', async ({ page }) => {
  await page.goto(`${stack.baseURL}/settings`);
  const reset = page.getByRole('button', { name: 'Reset' });
  await expect(reset).toBeDisabled();
  await expect(reset).toHaveAccessibleDescription('Nothing to reset: this browser uses the served settings.');

  const catalog = page.getByRole('textbox', { name: 'Catalog URL' });
  await catalog.fill('javascript:alert(document.domain)');
  await expect(catalog).toHaveAttribute('aria-invalid', 'true');
  await expect(catalog).toHaveAccessibleDescription(
    'Only an http(s) address or a path such as /api can be used, not a “javascript:” address.',
  );
  const save = page.getByRole('button', { name: 'Save' });
  await expect(save).toBeDisabled();
  await expect(save).toHaveAccessibleDescription('Fix the catalog URL above to save.');
  await catalog.press('Enter');
  await page.reload();
  await expect(page.getByRole('textbox', { name: 'Catalog URL' })).toHaveValue('/api');
});

test('Test connection says what really happened, never a status that did not', async ({ page }) => {
  await page.goto(`${stack.baseURL}/settings`);
  const results = page.getByRole('region', { name: 'Connection test results' });
  const testButton = page.getByRole('button', { name: 'Test connection' });

  // The portal's own address: it answers, with the portal's page rather than the API.
  await page.getByRole('textbox', { name: 'Catalog URL' }).fill('/');
  await page.getByRole('textbox', { name: 'Stream URL' }).fill(`${noCorsURL}/api`);
  await testButton.click();
  await expect(results).toContainText(
    `Catalog API answered 200 OK with an HTML page, not the API's JSON: check that ${stack.baseURL}/cfg/apps is the API's address.`,
  );
  await expect(results).toContainText(
    `Streaming API: ${noCorsURL} answers, but does not let this page read its answers (CORS): allow the origin ${stack.baseURL} on that service.`,
  );
  await expect(results).not.toContainText('502');

  const closed = `http://127.0.0.1:${await freePort()}`;
  await page.getByRole('textbox', { name: 'Catalog URL' }).fill(`${closed}/api`);
  await testButton.click();
  await expect(results).toContainText(`Catalog API: no answer from ${closed}`);
});
