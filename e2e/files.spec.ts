/**
 * A session's files as people and attackers meet them, on the real stack with tokens and a real terminal in its
 * sandbox: what the program saves in ~/Files shows in the viewer's Files panel at once and downloads byte for byte;
 * what a person drops on the picture lands there for the program; a file larger than what is left is refused in
 * words and leaves nothing; links, a FIFO and names the program plants never lead the service outside the folder;
 * a watch link and another user reach nothing.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { Readable } from 'node:stream';
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { fromBuffer } from 'yauzl';
import { startStack, type Stack } from './support/stack';

const ALICE = 'files-e2e-alice';
const BOB = 'files-e2e-bob';
const sha = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

let stack: Stack;
let owner: BrowserContext;
let page: Page;
let sessionId = '';
let files = '';

const as = (token: string) => ({ authorization: `Bearer ${token}` });

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser }) => {
  stack = await startStack({
    tokens:
      `tokens:\n  - { user: alice, roles: [user], token_sha256: ${sha(ALICE)} }\n` +
      `  - { user: bob, roles: [user], token_sha256: ${sha(BOB)} }\n`,
  });
  owner = await browser.newContext({ viewport: { width: 1100, height: 900 }, acceptDownloads: true });
  await owner.addInitScript(
    (token) => localStorage.setItem('streamgate.settings', JSON.stringify({ token })),
    ALICE,
  );
  const res = await fetch(`${stack.apiURL}/stream`, {
    method: 'POST',
    headers: { ...as(ALICE), 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'terminal', version: '379.0.0', profile: 'default' }),
  });
  expect([200, 202]).toContain(res.status);
  sessionId = ((await res.json()) as { id: string }).id;
  files = `${stack.apiURL}/stream/${sessionId}/files`;
  page = await owner.newPage();
  await page.goto(`${stack.baseURL}/sessions/${sessionId}`);
  await expect(page.getByTestId('player-state')).toHaveText('Playing', { timeout: 40_000 });
});

test.afterAll(async () => {
  try {
    await owner?.close();
  } finally {
    await stack?.stop();
  }
});

/** Types a shell line into the terminal. */
async function shell(line: string) {
  await page.getByLabel('Session stream', { exact: true }).click({ position: { x: 60, y: 60 } });
  await page.keyboard.type(line, { delay: 15 });
  await page.keyboard.press('Enter');
}

async function listing(): Promise<{
  used_bytes: number;
  limit_bytes: number;
  items: { name: string; size: number }[];
}> {
  const res = await fetch(files, { headers: as(ALICE) });
  expect(res.status).toBe(200);
  return res.json();
}

const names = async () => (await listing()).items.map((item) => item.name);

async function filesPanel() {
  const panel = page.getByRole('region', { name: 'Files' });
  if (!(await panel.isVisible())) await page.getByRole('button', { name: 'Files', exact: true }).click();
  await expect(panel).toBeVisible();
  return panel;
}

test('what the program saves shows in the Files panel at once, and downloads byte for byte', async () => {
  const panel = await filesPanel();
  await expect(panel.getByText('No files yet.', { exact: false })).toBeVisible();
  await shell("printf 'saved by the program, line 1\\nline 2\\n' > ~/Files/notes.txt");
  // The program's write is seen by the folder's watch, told on the messages channel, and listed: no reload.
  await expect(panel.getByText('notes.txt', { exact: true })).toBeVisible({ timeout: 10_000 });
  const download = page.waitForEvent('download');
  await panel.getByRole('button', { name: 'Download notes.txt' }).click();
  const saved = await download;
  expect(saved.suggestedFilename()).toBe('notes.txt');
  expect(readFileSync(await saved.path()).toString()).toBe('saved by the program, line 1\nline 2\n');
});

test('a file dropped on the picture lands in ~/Files for the program, which reads it', async () => {
  const panel = await filesPanel();
  const text = `dropped ${Date.now()}\n`;
  const transfer = await page.evaluateHandle((content) => {
    const data = new DataTransfer();
    data.items.add(new File([content], 'dropped.txt', { type: 'text/plain' }));
    return data;
  }, text);
  const stage = page.getByLabel('Session stream', { exact: true });
  await stage.dispatchEvent('dragenter', { dataTransfer: transfer });
  await expect(page.getByText('Drop to put into ~/Files')).toBeVisible();
  await stage.dispatchEvent('drop', { dataTransfer: transfer });
  await expect(panel.getByText('dropped.txt', { exact: true })).toBeVisible({ timeout: 10_000 });
  // The program reads it: it copies it, and the copy comes back through the API with the same bytes.
  await shell('cp ~/Files/dropped.txt ~/Files/copy.txt');
  await expect.poll(names, { timeout: 10_000 }).toContain('copy.txt');
  const copy = await fetch(`${files}/copy.txt`, { headers: as(ALICE) });
  expect(await copy.text()).toBe(text);
});

test('a file larger than what is left is refused in words, and leaves nothing', async () => {
  const panel = await filesPanel();
  const before = await listing();
  // In the page: refused before a byte is sent.
  const transfer = await page.evaluateHandle(() => {
    const data = new DataTransfer();
    data.items.add(new File([new Uint8Array(600 * 1024 * 1024)], 'huge.bin'));
    return data;
  });
  await page.getByLabel('Session stream', { exact: true }).dispatchEvent('drop', { dataTransfer: transfer });
  await expect(panel.getByText(/larger than the session’s whole folder|does not fit/).first()).toBeVisible();
  // Through the API, a 600 MB upload into the 512 MB folder, sent as fast as it goes: refused at its announced
  // length, in the application's words (its refusal reaches the client, not a reset while it still sends).
  const total = 600 * 1024 * 1024;
  let sent = 0;
  const zeros = Buffer.alloc(256 * 1024);
  const huge = new Readable({
    read() {
      if (sent >= total) return void this.push(null);
      sent += zeros.length;
      this.push(zeros);
    },
  });
  const answer = await fetch(`${files}/huge.bin`, {
    method: 'PUT',
    headers: { ...as(ALICE), 'content-type': 'application/octet-stream', 'content-length': String(total) },
    body: Readable.toWeb(huge) as ReadableStream,
    duplex: 'half',
  } as RequestInit);
  const refusal = { status: answer.status, body: await answer.text() };
  huge.destroy();
  expect(refusal.status).toBe(413);
  expect((JSON.parse(refusal.body) as { detail: string }).detail).toMatch(/larger than|MB/);
  const after = await listing();
  expect(after.items.map((item) => item.name)).toEqual(before.items.map((item) => item.name));
  expect(after.used_bytes).toBe(before.used_bytes);
});

test('links, a FIFO and names the program plants never lead outside the folder', async () => {
  const passwd = sha(readFileSync('/etc/passwd'));
  await shell('ln -s /etc/passwd ~/Files/x; ln -s ../../ ~/Files/up; mkfifo ~/Files/pipe; echo planted');
  await expect.poll(names, { timeout: 10_000 }).toEqual(expect.arrayContaining(['x', 'up']));
  // A FIFO is neither a file nor a link: it is not listed.
  expect(await names()).not.toContain('pipe');
  // Reading through them: never the target, never a hang.
  for (const name of ['x', 'up', 'pipe']) {
    const res = await fetch(`${files}/${name}`, { headers: as(ALICE), signal: AbortSignal.timeout(10_000) });
    expect(res.status, `GET ${name}`).toBe(404);
  }
  // Names that would leave the folder are refused in words before anything is touched (sent as they are:
  // a browser's or fetch's URL would resolve the dots away before they left).
  for (const name of ['..', '%2E%2E', '.%2E', '..%2F..%2Fetc%2Fpasswd', '%2Fetc%2Fpasswd', 'a%00b']) {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const answer = await raw(method, `${new URL(files).pathname}/${name}`, 'root::0:0::/:/bin/sh\n');
      expect(answer.status, `${method} ${name}`).toBe(422);
      expect(answer.body, `${method} ${name}`).toMatch(/"detail"/);
    }
  }
  // The zip holds the files, never what a link points at, and does not hang on the FIFO.
  const zip = await fetch(`${files}?format=zip`, { headers: as(ALICE), signal: AbortSignal.timeout(20_000) });
  expect(zip.status).toBe(200);
  const entries = await zipEntries(Buffer.from(await zip.arrayBuffer()));
  expect(Object.keys(entries).sort()).toEqual(['copy.txt', 'dropped.txt', 'notes.txt']);
  expect(Object.values(entries).join('')).not.toContain('root:');
  // Writing over a link replaces the link; deleting one removes the link, not what it names.
  const over = await fetch(`${files}/x`, { method: 'PUT', headers: as(ALICE), body: 'mine\n' });
  expect(over.status).toBe(201);
  expect(await (await fetch(`${files}/x`, { headers: as(ALICE) })).text()).toBe('mine\n');
  expect((await fetch(`${files}/up`, { method: 'DELETE', headers: as(ALICE) })).status).toBe(204);
  expect(await names()).not.toContain('up');
  expect(sha(readFileSync('/etc/passwd'))).toBe(passwd);
});

test('a watch link and another user reach nothing; a control ticket reaches the files', async ({
  browser,
}) => {
  const ticket = async (scope: 'watch' | 'control') => {
    const res = await fetch(`${stack.apiURL}/stream/${sessionId}/tickets`, {
      method: 'POST',
      headers: { ...as(ALICE), 'content-type': 'application/json' },
      body: JSON.stringify({ scope }),
    });
    return ((await res.json()) as { ticket: string }).ticket;
  };
  const watch = await ticket('watch');
  for (const token of [watch, BOB]) {
    expect((await fetch(files, { headers: as(token) })).status).toBe(403);
    const put = await fetch(`${files}/planted.txt`, { method: 'PUT', headers: as(token), body: 'x' });
    expect(put.status).toBe(403);
    expect((await fetch(`${files}/notes.txt`, { method: 'DELETE', headers: as(token) })).status).toBe(403);
  }
  expect((await fetch(files)).status).toBe(403);
  expect(await names()).not.toContain('planted.txt');
  expect((await fetch(files, { headers: as(await ticket('control')) })).status).toBe(200);

  // The watch page offers no Files at all.
  const stranger = await browser.newContext();
  try {
    const watcher = await stranger.newPage();
    await page.getByRole('button', { name: 'Share a watch-only link' }).click();
    const link = await page.getByLabel('Watch-only link', { exact: true }).inputValue();
    await page.keyboard.press('Escape');
    await watcher.goto(link);
    await expect(watcher.getByTestId('player-state')).toHaveText('Playing', { timeout: 30_000 });
    await expect(watcher.getByRole('button', { name: 'Files', exact: true })).toHaveCount(0);
  } finally {
    await stranger.close();
  }
});

/** One request with its path as given (no URL resolution), as alice; its status and body. */
function raw(method: string, path: string, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(stack.apiURL);
    const req = httpRequest({ hostname, port, path, method, headers: as(ALICE) });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(method === 'PUT' ? body : undefined);
  });
}

/** The entries of a zip archive and their text. */
function zipEntries(bytes: Buffer): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    fromBuffer(bytes, { lazyEntries: true }, (error, zip) => {
      if (error || !zip) return reject(error ?? new Error('no zip'));
      const out: Record<string, string> = {};
      zip.on('entry', (entry: { fileName: string }) => {
        if (entry.fileName.endsWith('/')) return zip.readEntry();
        zip.openReadStream(entry as never, (err, stream) => {
          if (err || !stream) return reject(err ?? new Error('no stream'));
          let text = '';
          stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
          stream.on('end', () => {
            out[entry.fileName] = text;
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve(out));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}
