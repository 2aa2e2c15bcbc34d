/**
 * Sign-in with the site's identity provider against the real stack (CONTRACT §22, issue 32): a real, certified
 * OpenID provider in this process (test-support/oidc-issuer.ts), the service trusting it, the built portal in
 * Chromium. A person who is not signed in lands on the provider's page, comes back to the page they asked for,
 * sees their name, launches, watches, ends, finds the session among the ended ones and signs out; no token is
 * in a URL, in localStorage or in a log line. An admin (by group) sees everyone's sessions and the audit log;
 * a user does not.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, test, type Browser, type Page } from '@playwright/test';
import { PEOPLE, startOidcIssuer, type OidcIssuer, type Person } from '../test-support/oidc-issuer';
import { sampleCatalog } from './support/catalogs';
import { freePort } from './support/ports';
import { asStack, startE2eService, type Stack } from './support/stack';

test.describe.configure({ mode: 'serial' });

let issuer: OidcIssuer;
let stack: Stack;
/** Every address the pages went to, and the access tokens they held, to look for one in the other. */
const visited: string[] = [];
const tokens = new Set<string>();

test.beforeAll(async () => {
  const port = await freePort();
  const portal = `http://127.0.0.1:${port}`;
  issuer = await startOidcIssuer({
    port: await freePort(),
    redirectUris: [`${portal}/signin-callback`, `${portal}/signin-silent`],
    postLogoutRedirectUris: [`${portal}/`],
  });
  stack = asStack(
    await startE2eService(
      {
        catalog: sampleCatalog({ width: 320, height: 180, fps: 15 }),
        env: issuer.env({ STREAMGATE_OIDC_SCOPES: 'openid profile groups' }),
      },
      { port },
    ),
  );
});
test.afterAll(async () => {
  await stack?.stop();
  await issuer?.stop();
});

/** A page of its own browser context (its own storage), whose addresses are recorded. */
async function newPage(browser: Browser): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  page.on('framenavigated', (frame) => visited.push(frame.url()));
  return page;
}

/** Signs `person` in on the provider's page the portal sent the browser to. */
async function signInAt(page: Page, person: Person): Promise<void> {
  await expect(page.getByRole('heading', { name: 'Sign in to the test identity provider' })).toBeVisible();
  expect(page.url().startsWith(issuer.issuer)).toBe(true);
  await page.getByLabel('Username').fill(person);
  await page.getByLabel('Password').fill(PEOPLE[person].password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** What the page keeps in its two storages; the access token it signed in with, recorded. */
async function storages(page: Page): Promise<{ local: string; session: string; accessToken: string }> {
  const { local, session } = await page.evaluate(() => ({
    local: JSON.stringify({ ...localStorage }),
    session: JSON.stringify({ ...sessionStorage }),
  }));
  const key = `oidc.user:${issuer.issuer}:${issuer.clientId}`;
  const user = (JSON.parse(session) as Record<string, string>)[key];
  const accessToken = user ? (JSON.parse(user) as { access_token: string }).access_token : '';
  if (accessToken) tokens.add(accessToken);
  return { local, session, accessToken };
}

test('a person signs in, comes back to the page they asked for, launches, ends, sees it ended, and signs out', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const page = await newPage(browser);
  await page.goto(`${stack.baseURL}/sessions?from=link`);
  await signInAt(page, 'alice');

  // Back on the page asked for, with nothing of the sign-in in the address.
  await expect(page).toHaveURL(`${stack.baseURL}/sessions?from=link`);
  const bar = page.getByRole('banner');
  await expect(bar.getByText(PEOPLE.alice.name)).toBeVisible();
  await expect(bar.getByRole('button', { name: 'Sign out' })).toBeVisible();
  const signedIn = await storages(page);
  expect(signedIn.accessToken).not.toBe('');
  expect(signedIn.local).not.toContain(signedIn.accessToken);

  // Launch and watch.
  await page.goto(`${stack.baseURL}/launch?app=sample&profile=small`);
  await page.getByRole('button', { name: 'Review' }).click();
  await page.getByRole('button', { name: 'Launch' }).click();
  await expect(page.getByTestId('player-state')).toHaveText('Playing', { timeout: 30_000 });
  const id = new URL(page.url()).pathname.split('/sessions/')[1] ?? '';
  expect(id).toMatch(/^[0-9a-f-]{36}$/);

  // End it, and find it among the ended sessions, said in words.
  await page.getByRole('button', { name: 'End session' }).click();
  await page
    .getByRole('dialog', { name: 'End this session?' })
    .getByRole('button', { name: 'End session' })
    .click();
  await page.goto(`${stack.baseURL}/sessions`);
  const ended = page
    .getByRole('table', { name: 'Ended' })
    .getByRole('row')
    .filter({ has: page.getByRole('button', { name: `Copy session id ${id}` }) });
  await expect(ended).toContainText('Sample Viewer 1.0.0 (Small)');
  await expect(ended).toContainText('Ended by alice');

  // Sign out at the provider, and back to the portal, which waits to be asked again.
  await storages(page);
  await bar.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('button', { name: 'Yes, sign me out' }).click();
  await expect(page.getByRole('heading', { name: 'You have signed out' })).toBeVisible();
  expect(page.url()).toBe(`${stack.baseURL}/`);
  const after = await storages(page);
  expect(after.accessToken).toBe('');
  expect(after.session).not.toContain(signedIn.accessToken);
});

test('an admin by group sees everyone’s sessions and the audit log; a user does not', async ({ browser }) => {
  test.setTimeout(90_000);
  const admin = await newPage(browser);
  await admin.goto(`${stack.baseURL}/admin/audit`);
  await signInAt(admin, 'root');
  await expect(admin).toHaveURL(`${stack.baseURL}/admin/audit`);
  await storages(admin);
  await expect(admin.getByRole('banner').getByText(PEOPLE.root.name)).toBeVisible();
  await expect(
    admin.getByRole('navigation', { name: 'Admin pages' }).getByRole('link', { name: 'Audit log' }),
  ).toBeVisible();
  const log = admin.getByRole('table', { name: 'Audit log' });
  await expect(log.getByRole('row').filter({ hasText: 'alice' }).filter({ hasText: 'Launch' })).toHaveCount(
    1,
  );
  await expect(
    log.getByRole('row').filter({ hasText: 'alice' }).filter({ hasText: 'End' }).first(),
  ).toBeVisible();

  // Everyone's ended sessions, and one person's.
  await admin.goto(`${stack.baseURL}/sessions?person=alice`);
  const ended = admin.getByRole('table', { name: 'Ended' });
  await expect(ended.getByRole('columnheader', { name: 'Person' })).toBeVisible();
  await expect(ended.getByRole('row').filter({ hasText: 'Ended by alice' })).toHaveCount(1);

  const user = await newPage(browser);
  await user.goto(`${stack.baseURL}/admin/capacity`);
  await signInAt(user, 'alice');
  await expect(user).toHaveURL(`${stack.baseURL}/admin/capacity`);
  await storages(user);
  const nav = user.getByRole('navigation', { name: 'Admin pages' });
  await expect(nav.getByRole('link', { name: 'Capacity and the door' })).toBeVisible();
  await expect(user.getByText(/only admins may read it/)).toBeVisible();
  await expect(nav.getByRole('link', { name: 'Audit log' })).toHaveCount(0);
  await user.goto(`${stack.baseURL}/admin/audit`);
  await expect(user.getByText(/The audit log is for administrators/)).toBeVisible();
  await expect(user.getByRole('table', { name: 'Audit log' })).toHaveCount(0);
});

test('no token is in an address, the service’s log or the audit log', async () => {
  expect(tokens.size).toBeGreaterThanOrEqual(3);
  const audit = await readFile(path.join(stack.dataDir, 'state', 'audit.jsonl'), 'utf8');
  expect(audit).toContain('"action":"launch"');
  const log = stack.output();
  for (const token of tokens) {
    expect(visited.filter((url) => url.includes(token))).toEqual([]);
    expect(log).not.toContain(token);
    expect(audit).not.toContain(token);
  }
  // The code of a sign-in is in the way back's address, once, and replaced at once.
  expect(
    visited.filter((url) => url.includes('code=')).every((url) => url.includes('/signin-callback')),
  ).toBe(true);
});
