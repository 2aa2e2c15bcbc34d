/**
 * The media path as people and strangers meet it, against the real stack with tokens: a viewer page closed
 * and opened again plays each time (it used to kill its session), a watch-only link plays in a browser
 * that has no API token and never controls, its owner's "Stop sharing" drops whoever watches through it,
 * and someone with only a port number gets nothing.
 */
import { createHash } from 'node:crypto';
import { expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { startStack, type Stack } from './support/stack';
import { expectPlaying, look } from './support/video';
import { marksScript } from './support/whep-test-client';

const TOKEN = 'viewer-access-e2e-alice';
// The stream starts small and may grow to the viewer's size: the player's resize restarts the encoder,
// which is what made a viewer who came back abort the application.
const catalog = `
applications:
  - id: sample
    name: Sample Viewer
    description: The sample streaming application.
    versions:
      - { version: 1.0.0, description: Test build. }
profiles:
  - id: grows
    name: Grows
    description: 320x180, following the viewer up to 640x360.
    applications: [{ id: '*', versions: ['*'] }]
    settings: { width: 320, height: 180, fps: 30, max_width: 640, max_height: 360 }
`;

let stack: Stack;
let sessionId = '';
let owner: BrowserContext;

/** A context whose portal carries alice's API token, as the Settings page would save it. */
async function signedIn(browser: Browser): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  await context.addInitScript(
    (token) => localStorage.setItem('streamgate.settings', JSON.stringify({ token })),
    TOKEN,
  );
  return context;
}

async function openViewer(context: BrowserContext, url: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(url);
  await page.evaluate(marksScript());
  return page;
}

/**
 * The owner's viewer playing, a watch-only link shared from it, and a stranger (a browser without a token)
 * who has opened the link; `close()` closes both.
 */
async function sharedWithStranger(browser: Browser) {
  const page = await openViewer(owner, `${stack.baseURL}/sessions/${sessionId}`);
  await expectPlaying(page);
  await page.getByRole('button', { name: 'Share a watch-only link' }).click();
  const link = await page.getByLabel('Watch-only link', { exact: true }).inputValue();
  const stranger = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  const watcher = await openViewer(stranger, link);
  const close = async () => {
    await stranger.close();
    await page.close();
  };
  return { page, link, watcher, close };
}

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser }) => {
  const hash = createHash('sha256').update(TOKEN).digest('hex');
  stack = await startStack({
    catalog,
    tokens: `tokens:\n  - { user: alice, roles: [user], token_sha256: ${hash} }\n`,
  });
  owner = await signedIn(browser);
  const res = await fetch(`${stack.apiURL}/stream`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'sample', profile: 'grows' }),
  });
  sessionId = ((await res.json()) as { id: string }).id;
});

test.afterAll(async () => {
  try {
    await owner?.close();
  } finally {
    await stack?.stop();
  }
});

test('a viewer page closed and opened again plays each time', async () => {
  for (let round = 1; round <= 3; round++) {
    const page = await openViewer(owner, `${stack.baseURL}/sessions/${sessionId}`);
    await expectPlaying(page);
    // The stream follows the page's size: the resize that restarts the encoder has happened.
    await expect.poll(async () => (await look(page))?.width ?? 0).toBe(640);
    await page.close({ runBeforeUnload: true });
    const session = await fetch(`${stack.apiURL}/stream/${sessionId}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(session.status, `the session after round ${round}`).toBe(200);
  }
});

test('a stranger with only the signaling port gets nothing', async () => {
  const res = await fetch(`${stack.apiURL}/stream/${sessionId}`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  const routes = Object.values(
    (await res.json()).routes as Record<string, { description: string; source_port: number }[]>,
  );
  const port = routes.flat().find((r) => r.description === 'signaling')?.source_port;
  const signaling = `http://127.0.0.1:${port}`;
  expect(await (await fetch(`${signaling}/health`)).json()).toEqual({ status: 'ready' });
  const offer = await fetch(`${signaling}/whep`, {
    method: 'POST',
    headers: { 'content-type': 'application/sdp' },
    body: 'v=0\r\n',
  });
  expect(offer.status).toBe(401);
  expect(offer.headers.get('www-authenticate')).toBe('Bearer');
  const foreign = await fetch(`${signaling}/whep`, {
    method: 'OPTIONS',
    headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' },
  });
  expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
});

test('a watch-only link plays for someone without a token, and never controls', async ({ browser }) => {
  const { page, link, watcher, close } = await sharedWithStranger(browser);
  try {
    expect(new URL(link).search).toBe('');
    await expect(watcher.getByRole('heading', { name: /^Watching Sample Viewer 1\.0\.0/ })).toBeVisible();
    await expectPlaying(watcher);
    await expect(watcher.getByRole('button', { name: 'End session' })).toHaveCount(0);
    // Its pointer over the video moves nothing in the picture both pages see.
    const before = (await look(page))?.pointer ?? null;
    const box = await watcher.getByLabel('Session stream (watch only)').boundingBox();
    if (!box) throw new Error('the video has no box');
    await watcher.mouse.move(box.x + box.width * 0.8, box.y + box.height * 0.8, { steps: 4 });
    await watcher.mouse.down();
    await watcher.mouse.up();
    await expectPlaying(watcher);
    expect((await look(page))?.pointer ?? null).toEqual(before);

    // The link without its fragment, or turned into the owner's link, gives nothing.
    await watcher.goto(link.split('#')[0] as string);
    await expect(watcher.getByText(/This watch link is incomplete/)).toBeVisible();
    await watcher.goto(`${stack.baseURL}/sessions/${sessionId}`);
    await expect(watcher.getByText(/authenticat|permission|sign in|token/i).first()).toBeVisible({
      timeout: 20_000,
    });
    await expect(watcher.getByTestId('player-state')).not.toHaveText('Playing');
  } finally {
    await close();
  }
});

test('the owner stops sharing: the watcher is dropped, its link no longer plays, the owner plays on', async ({
  browser,
}) => {
  const { page, watcher, close } = await sharedWithStranger(browser);
  try {
    await expectPlaying(watcher);
    await page.getByRole('button', { name: 'Stop sharing' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Sharing stopped' })).toContainText(
      'the watch-only links made so far no longer work',
    );
    await expect(page.getByLabel('Watch-only link', { exact: true })).toHaveCount(0);
    // Dropped, it tries again with the link's ticket, which the application now refuses: that is final.
    await expect(watcher.getByText(/^The owner stopped sharing this session/)).toBeVisible({
      timeout: 30_000,
    });
    await expect(watcher.getByTestId('player-state')).toHaveText('Sharing stopped');
    await expect(watcher.getByText(/Reconnecting in/)).toHaveCount(0);
    await expect(watcher.getByRole('button', { name: /Reconnect|Retry/ })).toHaveCount(0);
    await expectPlaying(page);
  } finally {
    await close();
  }
});

// Last: it ends the session the tests above share.
test('a watcher through a link learns that the session ended, and says so for good', async ({ browser }) => {
  const { watcher, close } = await sharedWithStranger(browser);
  try {
    await expectPlaying(watcher);
    const ended = await fetch(`${stack.apiURL}/stream/${sessionId}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(ended.status).toBe(204);
    // The application is gone; the service's door, asked on the service's own address, says the session is.
    await expect(watcher.getByTestId('player-state')).toHaveText('Ended', { timeout: 30_000 });
    await expect(watcher.getByText('This session has ended.')).toBeVisible();
    await expect(watcher.getByText(/You are watching through a shared link/)).toHaveCount(0);
    await expect(watcher.getByText(/Reconnecting in/)).toHaveCount(0);
  } finally {
    await close();
  }
});
