/**
 * Real programs through the portal: a terminal (xterm on the display host) launched in the wizard, typed
 * into, clicked, resized, pasted into and copied from, and quit; and a program that fails, with the portal
 * saying why, on its page and on the Sessions page. Decoded frames are compared by their bright pixels (text is light on a dark terminal).
 */
import { expect, test, type Page } from '@playwright/test';
import { startStack, type Stack } from './support/stack';
import { pagePoint, readVideo } from './support/video';

const catalog = `
applications:
  - id: terminal
    name: Terminal
    description: A real program, xterm.
    versions:
      - version: 379.0.0
        description: xterm.
        # bash without the machine's ~/.bashrc: what a shell start-up file does (a tool's hook waiting on a lock
        # another shell holds) is not what this file tests. xterm selects to the clipboard and pastes from it, the
        # one selection the display host shares with the viewer.
        launch:
          display:
            command: [xterm, -fa, DejaVu Sans Mono, -fs, '14', -bg, black, -fg, white, -xrm, 'XTerm*selectToClipboard: true', -e, bash, --norc]
  - id: broken
    name: Broken
    description: A program that shows a window, then fails.
    versions:
      - version: 1.0.0
        description: Fails after three seconds.
        launch: { display: { command: [sh, -c, 'xterm & sleep 3; echo "the disk exploded" >&2; exit 3'] } }
profiles:
  - id: small
    name: Small
    description: 640x360, following the window up to 960x540.
    applications: [{ id: '*', versions: ['*'] }]
    settings: { width: 640, height: 360, fps: 30, max_width: 960, max_height: 540 }
`;

interface Frame {
  width: number;
  height: number;
  /** Pixels brighter than mid-grey: in all, in the rightmost tenth of the picture, and in rows [top, bottom). */
  bright: number;
  brightRight: number;
  brightBand: number;
}

/** What the viewer's video shows now; `band` is a range of stream rows [top, bottom) to count apart. */
async function frame(page: Page, band: [number, number] = [0, 0]): Promise<Frame | null> {
  return readVideo(
    page,
    ({ data, width, height }, [top, bottom]) => {
      let bright = 0;
      let brightRight = 0;
      let brightBand = 0;
      for (let i = 0; i < data.length; i += 4) {
        if ((data[i] as number) + (data[i + 1] as number) + (data[i + 2] as number) > 384) {
          bright++;
          if ((i / 4) % width > width * 0.9) brightRight++;
          const row = Math.floor(i / 4 / width);
          if (row >= top && row < bottom) brightBand++;
        }
      }
      return { width, height, bright, brightRight, brightBand };
    },
    band,
  );
}

async function typeLine(page: Page, text: string) {
  await page.keyboard.type(text, { delay: 15 });
  await page.keyboard.press('Enter');
}

let stack: Stack;
let page: Page;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser }) => {
  stack = await startStack({ catalog });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
});

test.afterAll(async () => {
  try {
    await page?.close();
  } finally {
    await stack?.stop();
  }
});

test('launches the terminal and a typed command changes the picture', async () => {
  await page.goto(`${stack.baseURL}/launch?app=terminal&profile=small`);
  await page.getByRole('button', { name: 'Review' }).click();
  await page.getByRole('button', { name: 'Launch' }).click();
  await page.waitForURL(/\/sessions\/[0-9a-f-]{36}$/, { timeout: 30_000 });
  await expect(page.getByTestId('player-state')).toHaveText('Playing', { timeout: 30_000 });
  await expect.poll(async () => (await frame(page))?.bright ?? 0).toBeGreaterThan(0);
  // Clicking the picture gives it the keyboard, as clicking a local window would.
  const inside = await pagePoint(page, 300, 200);
  await page.mouse.click(inside.x, inside.y);
  await typeLine(page, 'clear');
  await expect.poll(async () => (await frame(page))?.bright ?? 0).toBeLessThan(2_000);
  const before = (await frame(page))?.bright ?? 0;
  // The terminal shows what is typed (the echo of its tty) ...
  await page.keyboard.type('echo streamgate; echo streamgate; echo streamgate', { delay: 15 });
  await expect.poll(async () => ((await frame(page))?.bright ?? 0) - before).toBeGreaterThan(500);
  const typed = (await frame(page))?.bright ?? 0;
  // ... and the shell runs it: three lines of output and the next prompt.
  await page.keyboard.press('Enter');
  await expect.poll(async () => ((await frame(page))?.bright ?? 0) - typed).toBeGreaterThan(500);
});

test('the stream and the window follow the viewer up to the profile maximum', async () => {
  // The page is wider than 960 pixels: the stream grows to its maximum.
  await expect.poll(async () => (await frame(page))?.width ?? 0, { timeout: 15_000 }).toBe(960);
  await typeLine(page, 'clear; printf "%*s\\n" $(tput cols) | tr " " "#"');
  // A line as wide as the terminal reaches the right edge of the stream: the window is as wide as it.
  await expect.poll(async () => (await frame(page))?.brightRight ?? 0).toBeGreaterThan(20);
});

test('text pasted in is typed by the program, and a word it selects comes back out', async () => {
  await typeLine(page, 'clear');
  await expect.poll(async () => (await frame(page))?.bright ?? 0).toBeLessThan(2_000);
  const cleared = (await frame(page))?.bright ?? 0;
  await page.getByLabel('Session clipboard').fill('echo copyme42');
  await page.getByRole('button', { name: 'Send to session' }).click();
  const inside = await pagePoint(page, 300, 300);
  await page.mouse.click(inside.x, inside.y);
  // xterm pastes with Shift+Insert. It asks the selection's owner (the display host) for the text and types it
  // once the answer comes, so an Enter pressed at once can reach the shell before the text: wait for the text,
  // as a person would.
  await page.keyboard.press('Shift+Insert');
  await expect.poll(async () => ((await frame(page))?.bright ?? 0) - cleared).toBeGreaterThan(300);
  await page.keyboard.press('Enter');
  // Row 1 (about 17 pixels a row) holds the command's output, "copyme42", before anything is selected. (The
  // count of the whole picture would not tell: the shell shows pasted text highlighted until Enter.)
  await expect.poll(async () => (await frame(page, [18, 34]))?.brightBand ?? 0).toBeGreaterThan(100);
  // xterm counts clicks by time, not place: a click within its multi-click time (250 ms) of the focusing
  // click above would make the double click a triple one, which extends a selection from that first click.
  await page.waitForTimeout(600);
  // A double click on the output selects it.
  const word = await pagePoint(page, 24, 26);
  await page.mouse.dblclick(word.x, word.y);
  await expect(page.getByLabel('Session clipboard')).toHaveValue('copyme42', { timeout: 10_000 });
  // Sent once: the clipboard is read when the program takes it, not polled, and a mere selection is not sent.
  await expect(page.getByRole('list', { name: 'Message log' }).getByText('Received clipboard')).toHaveCount(
    1,
  );
});

test('quitting the program ends the session, and the portal says so', async () => {
  const inside = await pagePoint(page, 300, 300);
  await page.mouse.click(inside.x, inside.y);
  await typeLine(page, 'exit');
  await expect(page.getByTestId('player-state')).toHaveText('Ended', { timeout: 20_000 });
  await expect(page.getByText(/ended/i).first()).toBeVisible();
});

test('a program that fails ends its session with the reason, in words', async ({ browser }) => {
  const other = await browser.newPage();
  try {
    await other.goto(`${stack.baseURL}/launch?app=broken&profile=small`);
    await other.getByRole('button', { name: 'Review' }).click();
    await other.getByRole('button', { name: 'Launch' }).click();
    await other.waitForURL(/\/sessions\/[0-9a-f-]{36}$/, { timeout: 30_000 });
    await expect(other.getByTestId('player-state')).toHaveText('Failed', { timeout: 30_000 });
    // Headed "Failed", the program's own words said once, without "has ended" or "The session failed" before them.
    const failure = other.getByRole('alert').filter({ hasText: /the disk exploded/ });
    await expect(failure.getByText('Failed', { exact: true })).toBeVisible();
    await expect(failure).not.toContainText(/has ended|The session failed/);
    await expect(failure.getByRole('link', { name: 'Launch again' })).toBeVisible();
    await expect(failure.getByRole('link', { name: 'Back to Sessions' })).toBeVisible();
  } finally {
    await other.close();
  }
});

test('the Sessions page shows a failed session as failed: red, an error icon, its reason, Remove only', async () => {
  const launched = await page.request.post(`${stack.apiURL}/stream`, {
    data: { id: 'broken', version: '1.0.0', profile: 'small' },
  });
  expect([200, 202]).toContain(launched.status());
  const { id } = (await launched.json()) as { id: string };
  // It shows a window, then exits after three seconds: its own address answers 410 from then on.
  await expect
    .poll(async () => (await page.request.get(`${stack.apiURL}/stream/${id}`)).status(), { timeout: 30_000 })
    .toBe(410);

  await page.goto(`${stack.baseURL}/sessions`);
  const row = page
    .getByRole('table', { name: 'Sessions' })
    .getByRole('row')
    .filter({ has: page.getByRole('button', { name: `Copy session id ${id}` }) });
  await expect(row).toContainText('Broken 1.0.0 (Small)');
  const badge = row.locator('.MuiChip-colorError');
  await expect(badge).toHaveText('Failed');
  // Its icon (production builds carry no test ids on icons).
  await expect(badge.locator('svg.MuiChip-icon')).toBeVisible();
  await expect(row).toContainText('the disk exploded');
  await expect(row).not.toContainText(/pending|Waiting/i);
  // Nothing of it runs: no viewer to open, nothing to end, a line to take off the list.
  await expect(row.getByRole('link', { name: /^Open viewer/ })).toHaveCount(0);
  await row.getByRole('button', { name: `Remove failed session ${id}` }).click();
  await expect(row).toHaveCount(0);
});
