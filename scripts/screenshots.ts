/**
 * `npm run screenshots`: pictures of each main page of the portal, taken from the real stack (the service with
 * the repository's catalog.yaml, the built portal, a real session of its CAD program, OpenSCAD) in headless
 * Chromium, saved under docs/screenshots/ for the README; then a picture of each application of the catalog
 * running, for its `picture` key (scripts/app-pictures.ts). Run it after a change that shows, and commit the
 * pictures with the change.
 */
import { mkdir } from 'node:fs/promises';
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
  ready: (page: Page) => Promise<void>;
  viewport?: { width: number; height: number };
  theme?: 'light' | 'dark';
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
    ready: async (page) => {
      await page.getByTestId('player-state').filter({ hasText: 'Playing' }).waitFor({ timeout: 30_000 });
      // A few seconds of video: the picture has settled at the window's size, and OpenSCAD has drawn its part.
      await page.waitForFunction(() => (document.querySelector('video')?.currentTime ?? 0) > 4, undefined, {
        timeout: 30_000,
      });
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
  const context = await browser.newContext({ viewport: shot.viewport ?? desktop, colorScheme: shot.theme });
  await context.addInitScript(
    (theme) => localStorage.setItem('streamgate.theme', theme),
    shot.theme ?? 'light',
  );
  try {
    const page = await context.newPage();
    await page.goto(`${stack.baseURL}${shot.path(session)}`);
    await shot.ready(page);
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
    for (const shot of shots) {
      const file = await take(browser, stack, session, shot);
      console.log(`wrote ${path.relative(root, file)}`);
    }
    // Its GPU, for the applications' pictures: one person holds one of the two at a time.
    await endSession(stack, session);
    await picturesOfCatalog(browser, stack);
  } finally {
    await browser?.close();
    await stack.stop();
  }
}

await main();
