/**
 * `npm run screenshots`: pictures of each main page of the portal, taken from the real stack (the service with
 * the repository's catalog.yaml, the built portal, a real session of its CAD program, OpenSCAD) in headless
 * Chromium, saved under docs/screenshots/ for the README; then a picture of each application of the catalog
 * running, for its `picture` key (scripts/app-pictures.ts). Run it after a change that shows, and commit the
 * pictures with the change. Names after `--` take only those pictures of the portal (and none of the applications).
 */
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { chromiumLaunchOptions } from '../e2e/support/chromium';
import { startStack, type Stack } from '../e2e/support/stack';
import { endSession, picturesOfCatalog, startSession } from './app-pictures';
import { repositoryCatalog } from '../test-support/service';

const root = path.resolve(import.meta.dirname, '..');
const out = path.join(root, 'docs', 'screenshots');
const desktop = { width: 1280, height: 800 };
const phone = { width: 390, height: 844 };

/** One picture: where to go, what must show first, and the window. */
interface Shot {
  name: string;
  path: (session: string) => string;
  /** Waits until the page shows what the picture is of; what it returns is undone after the picture. */
  ready: (page: Page, stage: Stage) => Promise<void | (() => Promise<void>)>;
  viewport?: { width: number; height: number };
  theme?: 'light' | 'dark';
}

/** What a shot may use besides its page. */
interface Stage {
  browser: Browser;
  stack: Stack;
  session: string;
}

/** The viewer playing, its picture settled at the window's size and the program drawn (a few seconds of video). */
async function viewerPlaying(page: Page): Promise<void> {
  await page.getByTestId('player-state').filter({ hasText: 'Playing' }).waitFor({ timeout: 30_000 });
  await page.waitForFunction(() => (document.querySelector('video')?.currentTime ?? 0) > 4, undefined, {
    timeout: 30_000,
  });
}

const visible = (page: Page, role: Parameters<Page['getByRole']>[0], name: string | RegExp) =>
  page.getByRole(role, { name }).first().waitFor({ state: 'visible', timeout: 30_000 });

const shots: Shot[] = [
  {
    name: 'catalog',
    path: () => '/apps',
    ready: (page) => visible(page, 'link', 'CAD'),
  },
  {
    name: 'application',
    path: () => '/apps/cad',
    ready: (page) => visible(page, 'region', /^Profiles of/),
  },
  {
    name: 'launch',
    path: () => '/launch?app=cad&profile=light',
    ready: (page) => visible(page, 'button', 'Review'),
  },
  {
    name: 'viewer',
    path: (session) => `/sessions/${session}`,
    ready: viewerPlaying,
    theme: 'dark',
  },
  {
    // The session's files: one a person put in, and the part OpenSCAD exported there.
    name: 'files',
    path: (session) => `/sessions/${session}`,
    ready: async (page, { stack, session }) => {
      const files = `${stack.apiURL}/stream/${session}/files`;
      const model = await readFile(path.join(root, 'models', 'bracket.scad'));
      await fetch(`${files}/bracket-wider.scad`, { method: 'PUT', body: model });
      await fetch(`${files}/notes.txt`, { method: 'PUT', body: 'Holes 2 mm wider, for M5 bolts.\n' });
      await viewerPlaying(page);
      await page.getByRole('button', { name: 'Files', exact: true }).click();
      await page.getByText('bracket-wider.scad', { exact: true }).waitFor({ timeout: 15_000 });
    },
    // Tall enough for the panel under the picture.
    viewport: { width: 1280, height: 1180 },
    theme: 'dark',
  },
  {
    // Two people: a guest came by a watch link and asks for control; the owner's People panel.
    name: 'people',
    path: (session) => `/sessions/${session}`,
    ready: async (page, { browser }) => {
      await viewerPlaying(page);
      await page.getByRole('button', { name: 'Share a watch-only link' }).click();
      const link = await page.getByLabel('Watch-only link', { exact: true }).inputValue();
      await page.keyboard.press('Escape');
      const guest = await browser.newContext({ viewport: desktop });
      const theirs = await guest.newPage();
      await theirs.goto(link);
      await theirs.getByTestId('player-state').filter({ hasText: 'Playing' }).waitFor({ timeout: 30_000 });
      await theirs.getByRole('button', { name: /^People: / }).click();
      await theirs.getByRole('button', { name: 'Ask for control' }).click();
      await page.getByRole('button', { name: /^People: .*asking/ }).click();
      await page.getByText('asking for control', { exact: false }).first().waitFor({ timeout: 15_000 });
      return () => guest.close();
    },
    theme: 'dark',
  },
  {
    name: 'sessions',
    path: () => '/sessions',
    ready: (page) => visible(page, 'link', /^Open viewer of/),
  },
  {
    name: 'profiles',
    path: () => '/admin/profiles',
    ready: async (page) => {
      await visible(page, 'table', 'Profile availability');
      // Availability in words ("applies" until tried), and a Try per cell that applies.
      await page
        .getByRole('cell', { name: /applies/ })
        .first()
        .waitFor({ timeout: 30_000 });
      await visible(page, 'button', /^Try /);
    },
  },
  {
    name: 'settings',
    path: () => '/settings',
    ready: (page) => visible(page, 'button', 'Test connection'),
  },
  {
    name: 'phone-catalog',
    path: () => '/apps',
    ready: (page) => visible(page, 'link', 'CAD'),
    viewport: phone,
  },
];

async function take(browser: Browser, stack: Stack, session: string, shot: Shot): Promise<string> {
  let undo: void | (() => Promise<void>) = undefined;
  const context = await browser.newContext({ viewport: shot.viewport ?? desktop, colorScheme: shot.theme });
  await context.addInitScript(
    (theme) => localStorage.setItem('streamgate.theme', theme),
    shot.theme ?? 'light',
  );
  try {
    const page = await context.newPage();
    await page.goto(`${stack.baseURL}${shot.path(session)}`);
    undo = await shot.ready(page, { browser, stack, session });
    // The top of the page, no focus ring, and the pointer off every control, so that no tooltip shows.
    await page.evaluate(() => {
      (document.activeElement as HTMLElement | null)?.blur();
      window.scrollTo(0, 0);
    });
    await page.mouse.move(0, (shot.viewport ?? desktop).height - 1);
    const file = path.join(out, `${shot.name}.png`);
    await page.screenshot({ path: file, fullPage: false, animations: 'disabled' });
    return file;
  } finally {
    await undo?.();
    await context.close();
  }
}

async function main(): Promise<void> {
  await mkdir(out, { recursive: true });
  // The marks strip is for tests; a picture for people shows the application as they see it.
  const stack = await startStack({ ...repositoryCatalog(), env: { STREAMGATE_TEST_MARKS: '0' } });
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch(chromiumLaunchOptions);
    // A session of the CAD program (OpenSCAD with the bracket of models/), running, for the viewer and the list.
    const session = await startSession(stack, { id: 'cad', profile: 'default' });
    // `npm run screenshots -- files people`: only those, and no application pictures.
    const only = process.argv.slice(2);
    for (const shot of shots.filter((one) => only.length === 0 || only.includes(one.name))) {
      const file = await take(browser, stack, session, shot);
      console.log(`wrote ${path.relative(root, file)}`);
    }
    // Its GPU, for the applications' pictures: one person holds one of the two at a time.
    await endSession(stack, session);
    if (only.length === 0) await picturesOfCatalog(browser, stack);
  } finally {
    await browser?.close();
    await stack.stop();
  }
}

await main();
