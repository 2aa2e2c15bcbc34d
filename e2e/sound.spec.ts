/**
 * Sound end to end (CONTRACT §19): a program on the display host plays a 440 Hz tone on its session's sound
 * server and the portal's viewer, for control and for watching, hears 440 Hz (a Web Audio analyser on the
 * video element's stream); the sample application's tone follows a held key; a page opened without a click
 * starts muted and says so, and a click or a key unmutes it; a profile with `audio: false` has no audio track
 * and no speaker control; a client that offers video only still plays.
 */
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { startStack, type Stack } from './support/stack';
import { smallProfiles, toneApplication, TONE_FILE } from './support/catalogs';
import { dominant } from './support/sound';
import { installWhepClient, type WhepPageApi } from './support/whep-test-client';
import { launchStreamer } from './support/streamer-process';
import { freePort, freeUdpPort } from './support/ports';

declare const whep: WhepPageApi;

const catalog = `
applications:${toneApplication()}
  - id: sample
    name: Sample Viewer
    description: The sample streaming application.
    versions: [{ version: 1.0.0, description: Test build. }]
${smallProfiles}
  - id: quiet
    name: Quiet
    description: No sound.
    applications: [{ id: '*', versions: ['*'] }]
    settings: { width: 320, height: 180, fps: 15, audio: false }
`;

let stack: Stack;
let context: BrowserContext;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser }) => {
  stack = await startStack({ catalog, beside: [TONE_FILE] });
  context = await browser.newContext({ viewport: { width: 1000, height: 800 } });
});

test.afterAll(async () => {
  try {
    await context?.close();
  } finally {
    await stack?.stop();
  }
});

/**
 * Makes `page` a tab nobody has clicked or typed in yet, as far as the portal can tell. Playwright drives Chromium
 * through the DevTools protocol, whose evaluations count as user activation, so a page it opens reports
 * `navigator.userActivation.hasBeenActive` within moments of opening. Here the page learns of activation only from
 * a real (trusted) click or key, as a fresh tab would; the click or key itself still grants Chromium's own.
 */
async function asFreshTab(page: Page): Promise<void> {
  await page.addInitScript({
    content: `(() => {
      let active = false;
      for (const type of ['pointerdown', 'keydown'])
        window.addEventListener(type, (event) => { if (event.isTrusted) active = true; }, true);
      Object.defineProperty(navigator, 'userActivation', {
        configurable: true,
        get: () => ({ get hasBeenActive() { return active; }, get isActive() { return active; } }),
      });
    })();`,
  });
}

async function expectTone(page: Page, hz: number) {
  await expect
    .poll(async () => {
      const heard = await dominant(page);
      return heard.db > -70 ? Math.round(heard.hz / 10) * 10 : 0;
    })
    .toBe(hz);
}

/** The viewer plays: it says so, and frames are decoded (a program's picture has no marks to read). */
async function expectPlaying(page: Page) {
  await expect(page.getByTestId('player-state')).toHaveText('Playing', { timeout: 20_000 });
  await expect
    .poll(() =>
      page.evaluate(() => document.querySelector('video')?.getVideoPlaybackQuality().totalVideoFrames),
    )
    .toBeGreaterThan(2);
}

/** Ends a session through the API, freeing its GPU for the next test. */
async function end(id: string): Promise<void> {
  await fetch(`${stack.apiURL}/stream/${id}`, { method: 'DELETE' });
}

async function launch(page: Page, app: string, profile: string): Promise<string> {
  await page.goto(`${stack.baseURL}/launch?app=${app}&profile=${profile}`);
  await page.getByRole('button', { name: 'Review' }).click();
  await page.getByRole('button', { name: 'Launch', exact: true }).click();
  await page.waitForURL(/\/sessions\/[0-9a-f-]{36}$/, { timeout: 30_000 });
  await expectPlaying(page);
  return new URL(page.url()).pathname.split('/').at(-1) ?? '';
}

test('a program that plays 440 Hz is heard by its controller and by a watcher, who unmutes with a click', async () => {
  const page = await context.newPage();
  const id = await launch(page, 'tone', 'small');
  // The launch was a click on this page: sound plays at once.
  await expect(page.getByRole('button', { name: 'Mute', exact: true })).toBeVisible();
  expect(await page.evaluate(() => document.querySelector('video')?.muted)).toBe(false);
  await expectTone(page, 440);

  // A watcher's page opened from a link, with no click yet: the stream plays muted and says how to hear it.
  const watcher = await context.newPage();
  await asFreshTab(watcher);
  await watcher.goto(`${stack.baseURL}/sessions/${id}?mode=watch`);
  await expect(watcher.getByTestId('player-state')).toHaveText('Playing', { timeout: 20_000 });
  await expect(watcher.getByRole('button', { name: 'Unmute', exact: true })).toBeVisible();
  await expect(watcher.getByText('Sound is off: click or press any key to hear it')).toBeVisible();
  // The hint is over the picture, clear of the slider, and the toolbar stays on one line; muted, the slider says 0.
  const volume = watcher.getByRole('slider', { name: 'Volume' });
  await expect(volume).toHaveAttribute('aria-valuetext', 'Muted');
  const box = async (name: string) => {
    const found = await watcher.getByRole('button', { name, exact: true }).boundingBox();
    if (!found) throw new Error(`no box for ${name}`);
    return found;
  };
  const [unmute, disconnect] = [await box('Unmute'), await box('Disconnect')];
  expect(Math.abs(unmute.y + unmute.height / 2 - (disconnect.y + disconnect.height / 2))).toBeLessThan(4);
  const hint = await watcher.getByText('Sound is off: click or press any key to hear it').boundingBox();
  const stage = await watcher.getByLabel('Session stream (watch only)').boundingBox();
  expect(hint && stage && hint.y >= stage.y && hint.y + hint.height <= stage.y + stage.height).toBe(true);
  await expectPlaying(watcher);
  expect(await watcher.evaluate(() => document.querySelector('video')?.muted)).toBe(true);
  await expectTone(watcher, 440);
  // Any click on the page: a watcher's picture takes no input, but the click still counts.
  await watcher.getByRole('heading', { level: 1 }).click();
  await expect(watcher.getByRole('button', { name: 'Mute', exact: true })).toBeVisible();
  await expect(watcher.getByText('Sound is off: click or press any key to hear it')).toHaveCount(0);
  const playing = await watcher.evaluate(() => {
    const video = document.querySelector('video');
    return { muted: video?.muted, paused: video?.paused };
  });
  expect(playing).toEqual({ muted: false, paused: false });
  await watcher.close();
  await page.close();
  await end(id);
});

test('a key unmutes a page opened without a click, and the sample application sounds while a key is held', async () => {
  const page = await context.newPage();
  await launch(page, 'sample', 'small');
  const id = new URL(page.url()).pathname.split('/').at(-1) ?? '';
  await page.close();

  const viewer = await context.newPage();
  await asFreshTab(viewer);
  await viewer.goto(`${stack.baseURL}/sessions/${id}`);
  await expect(viewer.getByTestId('player-state')).toHaveText('Playing', { timeout: 20_000 });
  await expect(viewer.getByRole('button', { name: 'Unmute', exact: true })).toBeVisible();
  await viewer.keyboard.press('Shift');
  await expect(viewer.getByRole('button', { name: 'Mute', exact: true })).toBeVisible();
  expect(await viewer.evaluate(() => document.querySelector('video')?.muted)).toBe(false);

  // Silence until a key is held in the stream, then the sample application's 440 Hz.
  expect((await dominant(viewer)).db).toBeLessThan(-90);
  await viewer.getByLabel('Session stream', { exact: true }).click();
  await viewer.keyboard.down('a');
  try {
    await expectTone(viewer, 440);
  } finally {
    await viewer.keyboard.up('a');
  }
  await expect.poll(async () => (await dominant(viewer)).db).toBeLessThan(-90);
  await viewer.close();
  await end(id);
});

test('a profile without sound has no audio track and no speaker control', async () => {
  const page = await context.newPage();
  const id = await launch(page, 'tone', 'quiet');
  const heard = await dominant(page);
  expect(heard.tracks).toEqual(['video']);
  await expect(page.getByRole('button', { name: /^(Mute|Unmute)$/ })).toHaveCount(0);
  await expect(page.getByRole('slider', { name: 'Volume' })).toHaveCount(0);
  await page.close();
  await end(id);
});

test('a client that offers video only still plays', async () => {
  const app = await launchStreamer({
    signalingPort: await freePort(),
    mediaPort: await freeUdpPort(),
    args: ['--width', '320', '--height', '180'],
    readyWithinMs: 20_000,
  });
  const page = await context.newPage();
  try {
    await page.goto(`${app.url}/health`);
    await installWhepClient(page);
    const i = await page.evaluate((url) => whep.connect(url), app.url);
    await page.evaluate((n) => whep.ready(n), i);
    await expect.poll(() => page.evaluate((n) => whep.framesDecoded(n), i)).toBeGreaterThan(3);
  } finally {
    await page.close();
    await app.stop();
  }
});
