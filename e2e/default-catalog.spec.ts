/**
 * The repository's own catalog.yaml, what `npm start` serves: each real program launched as a person would, from
 * its card in the catalog (Launch opens the wizard at its review) to the viewer, where its picture is seen to be
 * the program's (many colours, not a blank display) and to move, by itself or after the input the test sends:
 * gears turn, a video plays (and is heard), a terminal runs a command, a model and a CAD part turn under a drag,
 * a web page scrolls, a presentation goes to its next slide. One session at a time, each ended before the next.
 */
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { repositoryCatalog } from '../test-support/service';
import { dominant } from './support/sound';
import { startStack, type Stack } from './support/stack';
import { changed, pagePoint, settled, sketch, type Sketch } from './support/video';

let stack: Stack;
let context: BrowserContext;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser }) => {
  // Three at once: the Instant profile's warm Kit App Stand-in holds one, and a session still stopping another, so
  // that a launch neither waits for it nor makes the service stop the warm one to let it through.
  stack = await startStack({ ...repositoryCatalog(), env: { STREAMGATE_CAPACITY: '3' } });
  // A small window: the Default profile follows it down, which spares the machine's two cores.
  context = await browser.newContext({ viewport: { width: 960, height: 720 } });
});

test.afterAll(async () => {
  try {
    await context?.close();
  } finally {
    await stack?.stop();
  }
});

/** Where a point of the stream is on the page, as fractions of the stream's width and height. */
async function at(page: Page, fx: number, fy: number) {
  const size = await page
    .getByLabel('Session stream', { exact: true })
    .evaluate((v: HTMLVideoElement) => ({ w: v.videoWidth, h: v.videoHeight }));
  return pagePoint(page, Math.round(fx * size.w), Math.round(fy * size.h));
}

async function drag(page: Page, from: [number, number], to: [number, number]) {
  const start = await at(page, ...from);
  const end = await at(page, ...to);
  await page.mouse.move(start.x, start.y);
  await page.mouse.down();
  await page.mouse.move(end.x, end.y, { steps: 10 });
  await page.mouse.up();
}

/** Launches `name` from its card in the catalog, through the wizard's review, and waits for its picture. */
async function launch(page: Page, name: string): Promise<string> {
  await page.goto(`${stack.baseURL}/apps`);
  await page.getByRole('link', { name: `Launch ${name}` }).click();
  await expect(page.getByRole('region', { name: 'Review' })).toBeVisible();
  await page.getByRole('button', { name: 'Launch', exact: true }).click();
  await page.waitForURL(/\/sessions\/[0-9a-f-]{36}$/, { timeout: 30_000 });
  await expect(page.getByTestId('player-state')).toHaveText('Playing', { timeout: 30_000 });
  // The program's own picture: many colours, where an empty display or a failed window has a handful.
  await expect.poll(async () => (await sketch(page))?.colours ?? 0, { timeout: 30_000 }).toBeGreaterThan(12);
  return new URL(page.url()).pathname.split('/').at(-1) ?? '';
}

/**
 * Waits until the picture differs from `before` in a good part of its cells: `least` of them (a tenth unless told;
 * a picture held still differs in under 2%).
 */
async function expectChangeFrom(page: Page, before: Sketch, least = 0.1) {
  await expect
    .poll(async () => {
      const now = await sketch(page);
      return now ? changed(before, now) : 0;
    })
    .toBeGreaterThan(least);
}

/** Each real program of catalog.yaml: the name on its card, and what the test does to make its picture change. */
const programs: { name: string; act?: (page: Page) => Promise<void>; least?: number }[] = [
  {
    name: 'Terminal',
    act: async (page) => {
      const inside = await at(page, 0.5, 0.5);
      await page.mouse.click(inside.x, inside.y);
      await page.keyboard.type('ls -l /usr/bin | head -40', { delay: 10 });
      await page.keyboard.press('Enter');
    },
  },
  { name: 'Model Viewer', act: (page) => drag(page, [0.45, 0.5], [0.7, 0.55]) },
  { name: 'Gears' },
  // OpenSCAD's 3D view is above its console, between its editor and its Customizer: a drag there turns the part.
  // The view is about a sixth of the window, so the turned part changes fewer cells than a tenth (7% in a run on a
  // busy machine): a twentieth, over twice what a still picture shows.
  { name: 'CAD', act: (page) => drag(page, [0.45, 0.25], [0.62, 0.42]), least: 0.05 },
  {
    name: 'Web Browser',
    act: async (page) => {
      const inside = await at(page, 0.5, 0.6);
      await page.mouse.move(inside.x, inside.y);
      await page.mouse.wheel(0, 800);
    },
  },
  {
    name: 'Presentation',
    act: async (page) => {
      // Below the slide, on Impress's empty workspace: the click gives the slide view the keyboard.
      const below = await at(page, 0.5, 0.9);
      await page.mouse.click(below.x, below.y);
      await page.keyboard.press('PageDown');
    },
  },
  { name: 'Video Player' },
];

for (const { name, act, least } of programs) {
  test(`${name} launches from its card, and its picture ${act ? 'follows input' : 'moves'}`, async () => {
    const page = await context.newPage();
    const id = await launch(page, name);
    try {
      const before = act ? await settled(page) : ((await sketch(page)) as Sketch);
      await act?.(page);
      await expectChangeFrom(page, before, least);
      if (name === 'Video Player') {
        // The clip's arpeggio (131 to 440 Hz) on the session's sound server, heard in the viewer: the launch was a
        // click on this page, so its sound plays unmuted.
        await expect
          .poll(async () => {
            const heard = await dominant(page);
            return heard.db > -70 && heard.hz > 100 && heard.hz < 1000;
          })
          .toBe(true);
      }
    } finally {
      await page.request.delete(`${stack.apiURL}/stream/${id}`);
      await page.close();
    }
  });
}
