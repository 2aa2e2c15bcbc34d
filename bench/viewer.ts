/**
 * A key as a person meets it: pressed in the portal's viewer at its usual size (a 1280x800 window, the stream
 * following the video element), until a presented frame shows it: the sample application's "Last key" line
 * changed, then a terminal (xterm on the display host) echoing the key. The page stamps the keydown, and a video
 * frame callback compares the watched part of each presented frame with the one before the key (for the sample,
 * the panel's "Last key" line, not the frame counter, which changes by itself; for the terminal, the whole
 * picture, which is still between keys); the figure is the frame's expected display time minus the keydown's
 * time stamp.
 * Usage: npx tsx bench/viewer.ts [--keys 30] [--apps sample,terminal] [--list]  (build the portal first: npm run
 * build). `--list` prints every key's time.
 */
import type { Browser } from 'playwright-core';
import { median, quantile } from './stats';
import { benchWithBrowser } from './with-browser';
import { KEY_PROBE, type KeyToPhoton } from './key-probe';

const args = process.argv.slice(2);
const at = args.indexOf('--keys');
const keys = at >= 0 ? Math.max(5, Number(args[at + 1]) || 30) : 30;
const TARGET_MS = 30;
const apps = (args.includes('--apps') ? (args[args.indexOf('--apps') + 1] ?? '') : 'sample,terminal').split(
  ',',
);

const catalog = `
applications:
  - id: sample
    name: Sample Viewer
    description: The sample streaming application.
    versions: [{ version: 1.0.0, description: Test build. }]
  - id: terminal
    name: Terminal
    description: xterm on the display host.
    versions:
      - version: 1.0.0
        description: Debian's xterm.
        launch:
          display:
            command: [xterm, -fa, DejaVu Sans Mono, -fs, '13', -bg, '#1d1f21', -fg, '#e0e0e0', -e, bash, --norc]
profiles:
  - id: follow
    name: Follow
    description: Follows the window.
    applications: [{ id: '*', versions: ['*'] }]
    settings: { width: 640, height: 360, fps: 30, max_width: 1920, max_height: 1080 }
`;

/**
 * Launches `app` through the portal and times `keys` keys typed into its viewer; ends the session after, so
 * that each application is measured alone (the sample application draws and encodes 30 frames a second).
 */
async function measure(
  browser: Browser,
  stack: { baseURL: string; apiURL: string },
  app: 'sample' | 'terminal',
) {
  const { baseURL } = stack;
  const times: number[] = [];
  const ready: number[] = [];
  let size = '';
  let misses = 0;
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  try {
    // tsx wraps named functions in __name(); functions evaluated in the page need that helper too.
    await page.addInitScript({ content: 'window.__name = (f) => f;' });
    await page.goto(`${baseURL}/launch?app=${app}&profile=follow`);
    await page.getByRole('button', { name: 'Review' }).click();
    await page.getByRole('button', { name: 'Launch', exact: true }).click();
    await page.waitForURL(/\/sessions\/[0-9a-f-]{36}$/, { timeout: 60_000 });
    await page.getByTestId('player-state').filter({ hasText: 'Playing' }).waitFor({ timeout: 30_000 });
    const video = page.getByLabel('Session stream', { exact: true });
    // The stream follows the element: wait until it has its size.
    await page.waitForFunction(() => (document.querySelector('video')?.videoWidth ?? 0) > 900, undefined, {
      timeout: 15_000,
    });
    // A click gives the viewer the keyboard; its ripple (bottom right) is away from the panel and fades in 0.7 s.
    const box = await video.boundingBox();
    if (!box) throw new Error('the video has no box');
    await page.mouse.click(box.x + box.width * 0.9, box.y + box.height * 0.9);
    await page.waitForTimeout(1_000);
    await page.evaluate(KEY_PROBE);
    for (let i = 0; i < keys; i++) {
      const key = 'abcdefghijklmnopqrstuvwxyz'[i % 26] as string;
      // A line of 20 keys at most, then Enter: the terminal's echo stays on screen, never wrapping.
      if (app === 'terminal' && i > 0 && i % 20 === 0) {
        await page.keyboard.press('Enter');
        await page.waitForTimeout(300);
      }
      const result = page.evaluate(
        (whole) =>
          (window as unknown as { nextKeyToPhoton(whole: boolean): Promise<KeyToPhoton> }).nextKeyToPhoton(
            whole,
          ),
        app === 'terminal',
      );
      // The probe has its "before" picture once evaluate has started; a frame's time is enough for it.
      await page.waitForTimeout(50);
      await page.keyboard.press(key);
      const measured = await result;
      if (measured) {
        times.push(measured.ms);
        ready.push(measured.ready);
        size = `${measured.width}x${measured.height}`;
      } else misses++;
      await page.waitForTimeout(150);
    }
  } finally {
    const session = new URL(page.url()).pathname.match(/\/sessions\/([0-9a-f-]{36})$/)?.[1];
    await page.close();
    if (session) await fetch(`${stack.apiURL}/stream/${session}`, { method: 'DELETE' });
  }
  const what = app === 'sample' ? 'the sample application' : 'a terminal on the display host';
  console.log(
    `key in the portal's viewer to a presented frame showing it, ${what}, stream ${size}, ${times.length} keys` +
      (misses ? ` (${misses} not seen within 3 s)` : ''),
  );
  if (args.includes('--list')) console.log(`  each key (ms): ${times.map((t) => t.toFixed(0)).join(' ')}`);
  // What of it is Chromium's compositing: from the frame handed to the compositor to its expected display.
  console.log(
    `  until the page had the frame (its presentation time): median ${median(ready).toFixed(1)} ms, p95 ` +
      `${quantile(ready, 0.95).toFixed(1)} ms; the compositing after it: median ${median(times.map((t, i) => t - (ready[i] ?? NaN))).toFixed(1)} ms`,
  );
  const m = median(times);
  console.log(
    `  median ${m.toFixed(1)} ms, p95 ${quantile(times, 0.95).toFixed(1)} ms (target <= ${TARGET_MS} ms: ${m <= TARGET_MS ? 'met' : 'missed'})`,
  );
}

benchWithBrowser({ catalog }, async (browser, stack) => {
  if (apps.includes('sample')) await measure(browser, stack, 'sample');
  if (apps.includes('terminal')) await measure(browser, stack, 'terminal');
});
