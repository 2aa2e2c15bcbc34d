/**
 * A session's files through the service (`PUT`/`GET {base}/stream/{id}/files/{name}`), on the real stack: the
 * service forwards each byte to the session's application (here the sample application), which writes it into the
 * session's folder. Prints:
 *   upload, download   MB/s of one 200 MB file, end to end over loopback, and the bytes checked (SHA-256) on the way back
 *   service memory     the service's resident memory idle and its peak while each transfer runs (target: +50 MB at most)
 *   key to photon      a viewer's key (the sample application's "Last key" line) idle, then while a 200 MB upload
 *                      into the same session runs: medians, p95 and the ratio (target: 1.5 at most)
 * The transfers are made from Node with the portal's own requests (an octet stream with its length), not from the
 * page, so that the browser's copy of 200 MB does not count; the keys are typed in the portal's viewer.
 * Usage: npx tsx bench/files.ts [--mb 200] [--keys 30]   (build the portal first: npm run build)
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { median, quantile } from './stats';
import { KEY_PROBE, typeTimedKeys } from './key-probe';
import { benchWithBrowser } from './with-browser';
import { sampleCatalog } from '../e2e/support/catalogs';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = args.indexOf(name);
  return at >= 0 ? Math.max(1, Number(args[at + 1]) || fallback) : fallback;
};
const MB = option('--mb', 200);
const KEYS = option('--keys', 30);
const CHUNK = 256 * 1024;

// The sample application, 1280x720 at 30 fps, with a folder large enough for the file and one more.
const catalog = sampleCatalog(
  { width: 1280, height: 720, fps: 30 },
  { id: 'files', description: 'A folder for two of the files.', settings: `files_mb: ${MB * 2 + 64}` },
);

/** Resident memory of process `pid`, in MB. */
function rssMb(pid: number): number {
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return line ? Number(line[1]) / 1024 : NaN;
}

/** Samples `pid`'s resident memory every 20 ms while `work` runs; its result and the peak. */
async function peakWhile<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; peakMb: number }> {
  let peak = rssMb(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 20);
  try {
    return { result: await work(), peakMb: Math.max(peak, rssMb(pid)) };
  } finally {
    clearInterval(timer);
  }
}

/** `mb` MB of bytes that differ from chunk to chunk (so nothing on the way could shortcut them), with their digest. */
function body(mb: number): { stream: Readable; digest: Promise<string> } {
  const hash = createHash('sha256');
  let sent = 0;
  const total = mb * 1024 * 1024;
  let resolve!: (d: string) => void;
  const digest = new Promise<string>((r) => (resolve = r));
  const stream = new Readable({
    read() {
      if (sent >= total) {
        resolve(hash.digest('hex'));
        this.push(null);
        return;
      }
      const chunk = Buffer.alloc(Math.min(CHUNK, total - sent), sent / CHUNK);
      chunk.writeUInt32LE(sent / CHUNK, 0);
      hash.update(chunk);
      sent += chunk.length;
      this.push(chunk);
    },
  });
  return { stream, digest };
}

async function upload(url: string, mb: number): Promise<{ seconds: number; digest: string }> {
  const { stream, digest } = body(mb);
  const began = performance.now();
  const answer = await fetch(url, {
    method: 'PUT',
    headers: { 'content-type': 'application/octet-stream', 'content-length': String(mb * 1024 * 1024) },
    body: Readable.toWeb(stream) as ReadableStream,
    duplex: 'half',
  } as RequestInit);
  if (answer.status !== 201) throw new Error(`upload: ${answer.status} ${await answer.text()}`);
  return { seconds: (performance.now() - began) / 1000, digest: await digest };
}

async function download(url: string): Promise<{ seconds: number; digest: string; bytes: number }> {
  const began = performance.now();
  const answer = await fetch(url);
  if (answer.status !== 200 || !answer.body) throw new Error(`download: ${answer.status}`);
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of answer.body as unknown as AsyncIterable<Uint8Array>) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { seconds: (performance.now() - began) / 1000, digest: hash.digest('hex'), bytes };
}

const summary = (ms: number[]) =>
  `median ${median(ms).toFixed(1)} ms, p95 ${quantile(ms, 0.95).toFixed(1)} ms`;

benchWithBrowser({ catalog }, async (browser, stack) => {
  const pid = stack.process.pid ?? 0;
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.addInitScript({ content: 'window.__name = (f) => f;' });
  await page.goto(`${stack.baseURL}/launch?app=sample&profile=files`);
  await page.getByRole('button', { name: 'Review' }).click();
  await page.getByRole('button', { name: 'Launch', exact: true }).click();
  await page.waitForURL(/\/sessions\/[0-9a-f-]{36}$/, { timeout: 60_000 });
  await page.getByTestId('player-state').filter({ hasText: 'Playing' }).waitFor({ timeout: 30_000 });
  await page.evaluate(KEY_PROBE);
  const session = new URL(page.url()).pathname.split('/').at(-1) as string;
  const files = `${stack.apiURL}/stream/${session}/files`;
  try {
    const idleMb = rssMb(pid);
    const up = await peakWhile(pid, () => upload(`${files}/bench.bin`, MB));
    const down = await peakWhile(pid, () => download(`${files}/bench.bin`));
    if (down.result.digest !== up.result.digest || down.result.bytes !== MB * 1024 * 1024)
      throw new Error('the file came back different from what was sent');
    console.log(
      `one ${MB} MB file through the service to the sample application's folder and back (loopback)`,
    );
    console.log(
      `  upload ${(MB / up.result.seconds).toFixed(0)} MB/s, download ${(MB / down.result.seconds).toFixed(0)} MB/s, bytes checked`,
    );
    const worst = Math.max(up.peakMb, down.peakMb) - idleMb;
    console.log(
      `  service memory: idle ${idleMb.toFixed(0)} MB, peak ${up.peakMb.toFixed(0)} MB uploading, ${down.peakMb.toFixed(0)} MB downloading ` +
        `(+${worst.toFixed(0)} MB; target +50 MB: ${worst <= 50 ? 'met' : 'missed'})`,
    );

    const idle = await typeTimedKeys(page, KEYS);
    // Uploads one after another for as long as the keys take, so that every key meets one.
    let typing = true;
    const uploads = (async () => {
      let n = 0;
      while (typing) {
        await upload(`${files}/during.bin`, MB);
        // A replacement needs room for both while it is written: the last one goes first.
        await fetch(`${files}/during.bin`, { method: 'DELETE' });
        n++;
      }
      return n;
    })();
    const busy = await typeTimedKeys(page, KEYS);
    typing = false;
    const count = await uploads;
    // Idle again, after: the first round follows the transfers above closely, and the machine may still settle.
    const idleAfter = await typeTimedKeys(page, KEYS);
    const calm = [...idle.ms, ...idleAfter.ms];
    const ratio = median(busy.ms) / median(calm);
    console.log(`a viewer's key to photon (the sample application's "Last key" line), ${KEYS} keys each`);
    console.log(
      `  idle, before:          ${summary(idle.ms)}${idle.missed.length ? `, ${idle.missed.length} not seen` : ''}`,
    );
    console.log(
      `  idle, after:           ${summary(idleAfter.ms)}${idleAfter.missed.length ? `, ${idleAfter.missed.length} not seen` : ''}`,
    );
    console.log(
      `  during ${MB} MB uploads: ${summary(busy.ms)}${busy.missed.length ? `, ${busy.missed.length} not seen` : ''} (${count} uploads)`,
    );
    console.log(
      `  ratio of medians, during against idle (both rounds) ${ratio.toFixed(2)} (target 1.5 at most: ${ratio <= 1.5 ? 'met' : 'missed'})`,
    );
  } finally {
    await page.close();
    await fetch(`${stack.apiURL}/stream/${session}`, { method: 'DELETE' });
  }
});
