/**
 * The portal against the real stack: browse and filter the catalog, open an application, launch through the
 * wizard while every GPU is busy (the 202 path), end sessions, check profile availability, and errors in words.
 */
import { createHash } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { startStack, type Stack } from './support/stack';
import { startRunningSession } from './support/sessions';

const catalog = `
applications:
  - id: sample-viewer
    name: Sample Viewer
    description: The sample streaming application.
    tags: [viewer, test]
    versions:
      - { version: 1.0.0, description: First. }
      - { version: 1.10.0, description: Current. }
      - { version: 2.0.0-rc.1, description: Candidate. }
  - id: sample-editor
    name: Sample Editor
    description: Edits things.
    tags: [editor, test]
    versions:
      - { version: 1.0.0, description: First. }
  - id: script-app
    name: Script App
    description: '<script>window.hacked = 1</script><b>bold</b>'
    tags: [test]
    versions:
      - { version: 0.1.0, description: First. }
profiles:
  - id: small
    name: Small
    description: 320x180 at 15 fps.
    applications: [{ id: '*', versions: ['*'] }]
    settings: { width: 320, height: 180, fps: 15, max_width: 640, max_height: 360 }
  - id: editor-only
    name: Editor only
    description: For the editor.
    applications: [{ id: sample-editor, versions: ['*'] }]
    settings: { width: 320, height: 180, fps: 15 }
  - id: pinned
    name: Pinned
    description: Only for Sample Viewer 1.10.0.
    applications: [{ id: sample-viewer, versions: [1.10.0] }]
    settings: { width: 320, height: 180, fps: 15 }
`;

test.describe('portal', () => {
  let stack: Stack;
  test.beforeAll(async () => {
    stack = await startStack({ catalog, env: { STREAMGATE_CAPACITY: '1' } });
  });
  test.afterAll(async () => {
    await stack?.stop();
  });

  test('browse, search and filter the catalog; markup in a description stays text', async ({ page }) => {
    await page.goto(`${stack.baseURL}/`);
    const list = page.getByRole('region', { name: 'Applications' });
    await expect(list.getByRole('article')).toHaveCount(3);
    await expect(page.getByText('<script>window.hacked = 1</script><b>bold</b>')).toBeVisible();
    expect(await page.evaluate(() => (window as { hacked?: number }).hacked)).toBeUndefined();

    await page.getByRole('combobox', { name: 'Tags' }).fill('editor');
    await page.getByRole('option', { name: 'editor' }).click();
    await expect(list.getByRole('article')).toHaveCount(1);
    await expect(list.getByRole('link', { name: 'Sample Editor', exact: true })).toBeVisible();
    expect(new URL(page.url()).searchParams.getAll('tags')).toEqual(['editor']);

    await page.goto(`${stack.baseURL}/apps?q=viewer`);
    await expect(list.getByRole('article')).toHaveCount(1);
    await expect(page.getByRole('searchbox', { name: 'Search applications' })).toHaveValue('viewer');
  });

  test('open an application: SemVer order, latest marked, profiles per version', async ({ page }) => {
    await page.goto(`${stack.baseURL}/apps`);
    await page.getByRole('link', { name: 'Sample Viewer', exact: true }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Sample Viewer' })).toBeVisible();
    const versions = page.getByRole('list', { name: 'Versions' }).getByRole('button');
    await expect(versions).toHaveText(['2.0.0-rc.1pre-release', '1.10.0latest', '1.0.0']);
    const profiles = page.getByRole('region', { name: 'Profiles of version 1.10.0' });
    await expect(profiles.getByRole('heading', { level: 3 })).toHaveText([
      'Pinned (pinned)',
      'Small (small)',
    ]);
    await versions.filter({ hasText: '1.0.0' }).last().click();
    await expect(
      page.getByRole('region', { name: 'Profiles of version 1.0.0' }).getByRole('heading'),
    ).toHaveText(['Small (small)']);
  });

  test("from a card to a playing session in two clicks: the card's Launch, then the review's", async ({
    page,
    request,
  }) => {
    test.setTimeout(90_000);
    await page.goto(`${stack.baseURL}/apps`);
    const card = (name: string) => page.getByRole('article', { name });
    // Two profiles and neither is the default: the wizard asks which, and waits for Review.
    await card('Sample Viewer').getByRole('link', { name: 'Launch Sample Viewer' }).click();
    await expect(page.getByRole('button', { name: 'Review' })).toHaveAccessibleDescription(
      'Choose a profile to review the launch.',
    );
    await page.goBack();

    // One profile: chosen, and the review is open with its Launch.
    await card('Script App').getByRole('link', { name: 'Launch Script App' }).click();
    const summary = page.getByRole('table', { name: 'Launch summary' });
    await expect(summary.getByRole('row', { name: 'Profile Small (small)' })).toBeVisible();
    await expect(summary).toContainText('Script App (script-app)');
    await page.getByRole('button', { name: 'Launch', exact: true }).click();
    await expect(page).toHaveURL(/\/sessions\/[0-9a-f-]{36}$/, { timeout: 30_000 });
    const id = new URL(page.url()).pathname.split('/').pop()!;
    try {
      await expect(page.getByTestId('player-state')).toHaveText('Playing', { timeout: 30_000 });
    } finally {
      expect((await request.delete(`${stack.apiURL}/stream/${id}`)).status()).toBe(204);
    }
  });

  test('launch while the GPU is busy: the session waits, then the viewer opens; end it in Sessions', async ({
    page,
    request,
  }) => {
    test.setTimeout(150_000);
    const first = await startRunningSession(request, stack.apiURL);

    await page.goto(`${stack.baseURL}/apps/sample-viewer`);
    await page.getByRole('link', { name: 'Launch sample-viewer 1.10.0 with Small' }).click();
    await expect(page.getByRole('combobox', { name: 'Version' })).toHaveText('1.10.0');
    await page.getByRole('button', { name: 'Review' }).click();
    await expect(page.getByRole('table', { name: 'Launch summary' })).toContainText(
      'Sample Viewer (sample-viewer)',
    );
    await page.getByRole('button', { name: 'Launch' }).click();
    await expect(page.getByRole('heading', { name: 'Waiting for a free GPU' })).toBeVisible({
      timeout: 20_000,
    });
    // First in the queue: said as such, not as "0 sessions ahead"; no phase name.
    await expect(page.getByRole('status').filter({ hasText: "You're next" })).toBeVisible();
    await expect(page.getByText('Phase: pending')).toBeHidden();
    const second = new URL(page.url()).pathname.split('/sessions/')[1] ?? null;
    expect(second).toMatch(/^[0-9a-f-]{36}$/);

    expect((await request.delete(`${stack.apiURL}/stream/${first}`)).status()).toBe(204);
    // The session's own page waits with it, then plays it.
    await expect(page).toHaveURL(new RegExp(`/sessions/${second}$`));
    // A waiting page asks every second at most: it plays within a few seconds of the GPU's release (it took
    // 6.8 s when its polls had backed off to 5 s).
    await expect(page.getByTestId('player-state')).toHaveText('Playing', { timeout: 5_000 });

    await page.goto(`${stack.baseURL}/sessions`);
    const row = page
      .getByRole('row')
      .filter({ has: page.getByRole('button', { name: `Copy session id ${second}` }) });
    await expect(row.getByText('Running', { exact: true })).toBeVisible();
    // Named by the catalog's names, the short id after them.
    await expect(row).toContainText(`Sample Viewer 1.10.0 (Small)${second!.slice(0, 8)}`);
    await row.getByRole('button', { name: `End session ${second}` }).click();
    const dialog = page.getByRole('dialog', { name: 'End this session?' });
    await expect(dialog).toContainText('Sample Viewer 1.10.0 (Small) will be stopped');
    await dialog.getByRole('button', { name: 'End session' }).click();
    await expect(page.getByText(/No sessions/)).toBeVisible();
    expect((await request.get(`${stack.apiURL}/stream/${second}`)).status()).toBe(404);
  });

  test('Back during a queued launch leaves the session in the app bar, which opens its viewer', async ({
    page,
    request,
  }) => {
    test.setTimeout(120_000);
    const first = await startRunningSession(request, stack.apiURL);
    let second: string | null = null;
    try {
      await page.goto(`${stack.baseURL}/launch?app=sample-viewer&version=1.10.0&profile=small`);
      await page.getByRole('button', { name: 'Review' }).click();
      await page.getByRole('button', { name: 'Launch' }).click();
      const heading = page.getByRole('heading', { name: 'Waiting for a free GPU' });
      await expect(heading).toBeVisible({ timeout: 20_000 });
      second = new URL(page.url()).pathname.split('/sessions/')[1] ?? null;
      await page.goBack();
      await expect(heading).toBeHidden();

      const indicator = page.getByRole('button', { name: 'Your sessions: 2 sessions, 1 waiting' });
      await indicator.click();
      const menu = page.getByRole('menu', { name: 'Your sessions' });
      const waiting = menu.getByRole('menuitem').filter({ hasText: 'Sample Viewer 1.10.0 (Small)' });
      await expect(waiting).toContainText('Waiting for a free GPU');
      await waiting.click();
      await expect(page).toHaveURL(new RegExp(`/sessions/${second}$`));
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Sample Viewer 1.10.0 (Small)');

      expect((await request.delete(`${stack.apiURL}/stream/${first}`)).status()).toBe(204);
      await expect(page.getByRole('button', { name: 'Your sessions: 1 session' })).toBeVisible({
        timeout: 30_000,
      });
    } finally {
      await request.delete(`${stack.apiURL}/stream/${first}`);
      if (second) await request.delete(`${stack.apiURL}/stream/${second}`);
    }
  });

  test('a session started from another browser shows its application and age', async ({ page, request }) => {
    const id = await startRunningSession(request, stack.apiURL);
    try {
      await page.goto(`${stack.baseURL}/sessions`);
      const row = page
        .getByRole('row')
        .filter({ has: page.getByRole('button', { name: `Copy session id ${id}` }) });
      await expect(row).toContainText('Sample Editor 1.0.0 (Small)');
      await expect(row).toContainText('under a minute, by anonymous');
    } finally {
      expect((await request.delete(`${stack.apiURL}/stream/${id}`)).status()).toBe(204);
    }
  });

  test('profile availability says in words which profiles apply, wildcards included', async ({ page }) => {
    await page.goto(`${stack.baseURL}/admin/profiles`);
    const table = page.getByRole('table', { name: 'Profile availability' });
    // A profile that applies offers its Try; one that does not says so, and offers none.
    const tryOf = (name: string) => table.getByRole('button', { name: `Try ${name}` });
    await expect(tryOf('Sample Editor 1.0.0 with Editor only')).toBeVisible({ timeout: 20_000 });
    await expect(tryOf('Script App 0.1.0 with Small')).toBeVisible();
    await expect(tryOf('Sample Viewer 1.10.0 with Pinned')).toBeVisible();
    await expect(tryOf('Sample Viewer 1.0.0 with Pinned')).toHaveCount(0);
    await expect(tryOf('Sample Viewer 2.0.0-rc.1 with Editor only')).toHaveCount(0);
    await expect(table.getByText('does not apply', { exact: true })).toHaveCount(8);
    await expect(table.getByRole('row')).toHaveCount(6);
  });

  test('a bad deep link shows the 422 on the application field, and Review says why it waits', async ({
    page,
  }) => {
    await page.goto(`${stack.baseURL}/launch?app=bad%20id&profile=small`);
    const app = page.getByRole('combobox', { name: 'Application' });
    await expect(app).toHaveAttribute('aria-invalid', 'true');
    await expect(app).toHaveAccessibleDescription(/\S/);
    const review = page.getByRole('button', { name: 'Review' });
    await expect(review).toBeDisabled();
    await expect(review).toHaveAccessibleDescription('Fix the application above to review the launch.');
  });
});

test.describe('portal with tokens', () => {
  let stack: Stack;
  const token = 'portal-e2e-viewer-token';
  test.beforeAll(async () => {
    const hash = createHash('sha256').update(token).digest('hex');
    stack = await startStack({
      catalog,
      tokens: `tokens:\n  - { user: vera, roles: [viewer], token_sha256: ${hash} }\n`,
    });
  });
  test.afterAll(async () => {
    await stack?.stop();
  });

  test('403 in words, then the catalog once a token is saved; launching needs another role', async ({
    page,
  }) => {
    await page.goto(`${stack.baseURL}/`);
    await expect(page.getByRole('alert')).toContainText('You do not have permission');
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByLabel('Access token').fill(token);
    await page.getByRole('button', { name: 'Test connection' }).click();
    await expect(page.getByText(/Catalog API answered 200: 3 applications/)).toBeVisible();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('link', { name: 'Catalog' }).click();
    await expect(page.getByRole('region', { name: 'Applications' }).getByRole('article')).toHaveCount(3);

    await page.goto(`${stack.baseURL}/launch?app=sample-viewer&profile=small`);
    await page.getByRole('button', { name: 'Review' }).click();
    await page.getByRole('button', { name: 'Launch' }).click();
    await expect(page.getByRole('alert')).toContainText('You do not have permission');
  });
});
