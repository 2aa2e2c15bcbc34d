/**
 * `npm run pictures` (and the end of `npm run screenshots`): a picture of each application of the catalog the
 * service was started with, as a person sees it running. For each application, a session of its first version
 * with the first profile that applies (the real programs and the sample application alike), its viewer in
 * headless Chromium, a frame of the video once it has played a few seconds, saved as pictures/<id>.webp beside
 * that catalog (640x360, WebP): what its `picture` key names. Then the session is ended.
 *
 * Alone it starts the stack itself with the repository's catalog.yaml, or the one STREAMGATE_CATALOG names.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { chromiumLaunchOptions } from '../e2e/support/chromium';
import { startStack, type Stack } from '../e2e/support/stack';
import { repositoryCatalog } from '../test-support/service';

const root = path.resolve(import.meta.dirname, '..');

/** The size of a picture: what the portal's cards show, 16:9, twice over for sharp screens. */
export const PICTURE = { width: 640, height: 360 };
/** WebP quality, 0 to 1: a tenth of a PNG's size, and nothing a card shows gives it away. */
const QUALITY = 0.8;
/** Seconds of video at the player's size before the frame is taken: the program has drawn what it shows. */
const SETTLED_S = 3;
/** Frames at the player's size before the frame is taken, where the program sends them: three seconds at 30 fps. */
const SETTLED_FRAMES = 90;

/** The picture of one application: the file written, and the `picture` key that names it. */
export interface Picture {
  id: string;
  file: string;
  key: string;
}

/** Where the pictures of a catalog go: `pictures/` beside it. */
export function picturesFolder(catalogFile: string): string {
  return path.join(path.dirname(path.resolve(catalogFile)), 'pictures');
}

/** The catalog file a service started without one reads: STREAMGATE_CATALOG, else the repository's. */
function defaultCatalogFile(): string {
  return path.resolve(root, process.env.STREAMGATE_CATALOG ?? 'catalog.yaml');
}

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}`);
  return (await res.json()) as T;
}

/** Starts a session and waits until it is ready; returns its id. */
export async function startSession(
  stack: Pick<Stack, 'apiURL'>,
  body: { id: string; version?: string; profile: string },
): Promise<string> {
  const res = await fetch(`${stack.apiURL}/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 200 && res.status !== 202) {
    throw new Error(`POST /stream answered ${res.status}: ${await res.text()}`);
  }
  const { id } = (await res.json()) as { id: string };
  // A real program's start-up timeout is 30 s by default, and it may wait in the queue before.
  for (let i = 0; i < 600; i++) {
    if ((await fetch(`${stack.apiURL}/stream/${id}`)).status === 200) return id;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await endSession(stack, id);
  throw new Error('The session was not ready within 60 s.');
}

/** Ends a session; one that has ended already is no error. */
export async function endSession(stack: Pick<Stack, 'apiURL'>, id: string): Promise<void> {
  await fetch(`${stack.apiURL}/stream/${id}`, { method: 'DELETE' });
}

/** What to launch for an application: its first version and the first profile that applies to it. */
async function launchOf(stack: Stack, id: string): Promise<{ version: string; profile: string }> {
  const app = encodeURIComponent(id);
  const versions = await getJson<{ items: { version: string }[] }>(
    `${stack.apiURL}/cfg/apps/${app}/versions`,
  );
  const version = versions.items[0]?.version;
  if (version === undefined) throw new Error('it has no version');
  const profiles = await getJson<{ items: { id: string }[] }>(
    `${stack.apiURL}/cfg/apps/${app}/versions/${encodeURIComponent(version)}/profiles`,
  );
  const profile = profiles.items[0]?.id;
  if (profile === undefined) throw new Error(`no profile applies to its version ${version}`);
  return { version, profile };
}

/**
 * Makes the viewer's player 16:9, by the window's height, so that the stream, which follows the player's size,
 * is of the picture's shape and nothing of it is cropped; waits until it is. A profile of a fixed size does not
 * follow: its frame is taken as it is, its middle.
 */
async function fitTo16by9(page: Page): Promise<void> {
  const aspect = PICTURE.width / PICTURE.height;
  // The player's height is a share of the window's: a few steps in proportion reach it to the pixel.
  for (let step = 0; step < 4; step++) {
    const box = await page.locator('video').boundingBox();
    const window = page.viewportSize();
    if (!box || !window || Math.abs(box.width / aspect - box.height) < 1) break;
    const height = Math.round((window.height * box.width) / aspect / box.height);
    await page.setViewportSize({ width: window.width, height });
  }
  // The stream follows the player a moment later: its frames are then of the player's size.
  const box = await page.locator('video').boundingBox();
  await page
    .waitForFunction(
      ({ width, height }) => {
        const video = document.querySelector('video');
        return (
          !!video && Math.abs(video.videoWidth - width) <= 2 && Math.abs(video.videoHeight - height) <= 2
        );
      },
      { width: Math.round(box?.width ?? 0), height: Math.round(box?.height ?? 0) },
      { timeout: 10_000 },
    )
    .catch(() => undefined);
}

/**
 * Waits until the picture has settled: a few seconds of video, and frames enough for the encoder to have
 * sharpened a still scene after its first key frame. A program that draws nothing new sends few frames: the
 * seconds alone then do.
 */
async function settle(page: Page): Promise<void> {
  const start = await page.evaluate(() => {
    const video = document.querySelector('video');
    return { time: video?.currentTime ?? 0, frames: video?.getVideoPlaybackQuality().totalVideoFrames ?? 0 };
  });
  await page
    .waitForFunction(
      (until) => (document.querySelector('video')?.getVideoPlaybackQuality().totalVideoFrames ?? 0) >= until,
      start.frames + SETTLED_FRAMES,
      { timeout: 10_000 },
    )
    .catch(() => undefined);
  await page.waitForFunction(
    (until) => (document.querySelector('video')?.currentTime ?? 0) >= until,
    start.time + SETTLED_S,
    { timeout: 30_000 },
  );
}

/** The viewer's current frame, the middle of it at 16:9 scaled to fill the picture, as WebP. */
async function captureFrame(browser: Browser, stack: Stack, session: string): Promise<Buffer> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    await page.goto(`${stack.baseURL}/sessions/${session}`);
    await page.getByTestId('player-state').filter({ hasText: 'Playing' }).waitFor({ timeout: 30_000 });
    await fitTo16by9(page);
    await settle(page);
    // No helper functions inside: the function runs in the page, without the module's scope.
    const url = await page.evaluate(
      ({ width, height, quality }) => {
        const video = document.querySelector('video');
        if (!video || video.videoWidth === 0) return null;
        const canvas = document.createElement('canvas');
        canvas.width = width;
        canvas.height = height;
        const scale = Math.max(width / video.videoWidth, height / video.videoHeight);
        const [w, h] = [width / scale, height / scale];
        const left = (video.videoWidth - w) / 2;
        const top = (video.videoHeight - h) / 2;
        canvas.getContext('2d')?.drawImage(video, left, top, w, h, 0, 0, width, height);
        return canvas.toDataURL('image/webp', quality);
      },
      { ...PICTURE, quality: QUALITY },
    );
    const prefix = 'data:image/webp;base64,';
    if (url === null) throw new Error('the viewer shows no video');
    if (!url.startsWith(prefix)) throw new Error('this Chromium cannot encode WebP');
    return Buffer.from(url.slice(prefix.length), 'base64');
  } finally {
    await context.close();
  }
}

/**
 * Takes a picture of every application of the catalog `stack` serves, one session at a time, into
 * pictures/<id>.webp beside `catalogFile` (the file that service reads). An application that cannot be
 * pictured is said and skipped; the others are still taken.
 */
export async function takeAppPictures(
  browser: Browser,
  stack: Stack,
  catalogFile: string,
  log: (line: string) => void = console.log,
): Promise<{ taken: Picture[]; failed: string[] }> {
  const folder = picturesFolder(catalogFile);
  await mkdir(folder, { recursive: true });
  const { items } = await getJson<{ items: { id: string }[] }>(`${stack.apiURL}/cfg/apps`);
  const taken: Picture[] = [];
  const failed: string[] = [];
  for (const { id } of items) {
    let session: string | undefined;
    try {
      session = await startSession(stack, { id, ...(await launchOf(stack, id)) });
      const file = path.join(folder, `${id}.webp`);
      await writeFile(file, await captureFrame(browser, stack, session));
      const key = path
        .relative(path.dirname(path.resolve(catalogFile)), file)
        .split(path.sep)
        .join('/');
      taken.push({ id, file, key });
      log(`wrote ${path.relative(process.cwd(), file)}`);
    } catch (error) {
      failed.push(id);
      log(`no picture of ${id}: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      if (session) await endSession(stack, session);
    }
  }
  return { taken, failed };
}

/**
 * Takes the pictures of the catalog the service reads (the repository's, or STREAMGATE_CATALOG's) and says
 * what to write in it; a failure makes the process's exit code 1.
 */
export async function picturesOfCatalog(browser: Browser, stack: Stack): Promise<void> {
  const catalogFile = defaultCatalogFile();
  const { taken, failed } = await takeAppPictures(browser, stack, catalogFile);
  console.log(`\nWrite in ${path.relative(process.cwd(), catalogFile)}, under each application:`);
  for (const { id, key } of taken) console.log(`  ${id}: picture: ${key}`);
  if (failed.length > 0) process.exitCode = 1;
}

async function main(): Promise<void> {
  // The marks strip is for tests; a picture for people shows the application as they see it.
  // The repository's catalog with the files beside it, unless STREAMGATE_CATALOG names another.
  const files = process.env.STREAMGATE_CATALOG ? {} : repositoryCatalog();
  const stack = await startStack({ ...files, env: { STREAMGATE_TEST_MARKS: '0' } });
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch(chromiumLaunchOptions);
    await picturesOfCatalog(browser, stack);
  } finally {
    await browser?.close();
    await stack.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
