/**
 * Benchmark of the sample streaming application in headless Chromium (`npx tsx bench/streamer.ts`):
 * time from POST /whep to the first decoded frame, input-to-photon latency read from the marks of
 * presented frames, and CPU of one session (application + ffmpeg) with one viewer at 640x360 and 1280x720.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium, type Browser, type Page } from 'playwright-core';
import { chromiumLaunchOptions } from '../e2e/support/chromium';
import { cpuSeconds, quantile } from './stats';
import {
  installWhepClient,
  startStreamerProcess,
  type StreamerProcess,
  type WhepPageApi,
} from '../e2e/support/whep-test-client.ts';

declare const whep: WhepPageApi;

const CONNECTS = Number(process.env.BENCH_CONNECTS ?? 24);
const INPUTS = Number(process.env.BENCH_INPUTS ?? 40);
const CPU_SECONDS = Number(process.env.BENCH_CPU_SECONDS ?? 10);
/** A new viewer's first frame (median), input to photon (median), and one 720p viewer's CPU: each at most. */
const TARGETS = { connectMs: 150, photonMs: 30, largeCores: 0.6 };
const verdict = (value: number, target: number, unit: string) =>
  `target <= ${target} ${unit}: ${value <= target ? 'met' : 'missed'}`;
function childPids(ppid: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === ppid) pids.push(Number(entry));
    } catch {
      // gone
    }
  }
  return pids;
}

async function waitFirstFrame(page: Page, i: number): Promise<number> {
  for (let k = 0; k < 500; k++) {
    const ms = await page.evaluate((n) => whep.firstFrameMs(n), i);
    if (ms !== null) return ms;
    await sleep(10);
  }
  throw new Error('no frame within 5 s');
}

async function firstFrames(page: Page, url: string): Promise<number[]> {
  const times: number[] = [];
  for (let k = 0; k < CONNECTS; k++) {
    const i = await page.evaluate((u) => whep.connect(u), url);
    times.push(await waitFirstFrame(page, i));
    await page.evaluate((n) => whep.close(n), i);
    // Let the previous connection wind down so that each connect is measured on its own.
    await sleep(150);
  }
  return times;
}

async function inputToPhoton(page: Page, url: string): Promise<number[]> {
  const i = await page.evaluate((u) => whep.connect(u), url);
  await page.evaluate((n) => whep.ready(n), i);
  await waitFirstFrame(page, i);
  await sleep(1000);
  const times: number[] = [];
  for (let k = 1; k <= INPUTS; k++) {
    const event = { type: 'pointermove', x: 40 + ((k * 37) % 500), y: 40 + ((k * 53) % 250), buttons: 0 };
    times.push(
      await page.evaluate(([n, e, s]) => whep.inputToPhoton(n, e, s), [i, event, 1000 + k] as const),
    );
    // Spread the inputs over frame phases instead of always right after a presented frame.
    await sleep(50 + ((k * 29) % 40));
  }
  await page.evaluate((n) => whep.close(n), i);
  return times;
}

interface Cpu {
  app: number;
  ffmpeg: number;
  /** Frames the viewer decoded per second over the same window. */
  fps: number;
  /** Frames the application drew per second (its frame counter, read from the marks). */
  drawn: number;
}

async function sessionCpu(browser: Browser, width: number, height: number): Promise<Cpu> {
  const app = await startStreamerProcess(['--width', String(width), '--height', String(height)]);
  const page = await browser.newPage();
  try {
    await installWhepClient(page);
    const i = await page.evaluate((u) => whep.connect(u), app.url);
    await waitFirstFrame(page, i);
    await sleep(2000);
    const pid = app.process.pid ?? 0;
    const ffmpeg = childPids(pid);
    const frames0 = await page.evaluate((n) => whep.framesDecoded(n), i);
    const counter0 = (await page.evaluate((n) => whep.look(n), i))?.marks?.frame ?? 0;
    const before = { app: cpuSeconds(pid), ffmpeg: ffmpeg.reduce((s, p) => s + cpuSeconds(p), 0) };
    await sleep(CPU_SECONDS * 1000);
    const after = { app: cpuSeconds(pid), ffmpeg: ffmpeg.reduce((s, p) => s + cpuSeconds(p), 0) };
    const frames = (await page.evaluate((n) => whep.framesDecoded(n), i)) - frames0;
    const counter = ((await page.evaluate((n) => whep.look(n), i))?.marks?.frame ?? 0) - counter0;
    return {
      app: (after.app - before.app) / CPU_SECONDS,
      ffmpeg: (after.ffmpeg - before.ffmpeg) / CPU_SECONDS,
      fps: frames / CPU_SECONDS,
      drawn: counter / CPU_SECONDS,
    };
  } finally {
    await page.close();
    await app.stop();
  }
}

const row = (name: string, median: string, p95: string, note = '') =>
  `| ${name.padEnd(40)} | ${median.padStart(10)} | ${p95.padStart(10)} | ${note}`;

async function main(): Promise<void> {
  const browser = await chromium.launch(chromiumLaunchOptions);
  let app: StreamerProcess | null = null;
  try {
    app = await startStreamerProcess(['--width', '640', '--height', '360']);
    const page = await browser.newPage();
    await installWhepClient(page);
    // One connect first, not counted: it warms up Chromium's codec and WebRTC code paths.
    const warm = await page.evaluate((u) => whep.connect(u), app.url);
    await waitFirstFrame(page, warm);
    await page.evaluate((n) => whep.close(n), warm);
    const connects = await firstFrames(page, app.url);
    const photons = await inputToPhoton(page, app.url);
    await page.close();
    await app.stop();
    app = null;
    const small = await sessionCpu(browser, 640, 360);
    const large = await sessionCpu(browser, 1280, 720);
    const cores = (c: Cpu) =>
      `${(c.app + c.ffmpeg).toFixed(2)} core (application ${c.app.toFixed(2)} + ffmpeg ${c.ffmpeg.toFixed(2)}), ` +
      `drew ${c.drawn.toFixed(1)} fps, viewer decoded ${c.fps.toFixed(1)} fps`;
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    console.log('');
    console.log(`Sample streaming application, loopback, headless Chromium (${new Date().toISOString()})`);
    console.log(row('measure', 'median', 'p95', 'notes'));
    console.log(row('-'.repeat(40), '-'.repeat(10), '-'.repeat(10), '-----'));
    const connectMs = quantile(connects, 0.5);
    const photonMs = quantile(photons, 0.5);
    console.log(
      row(
        'POST /whep to first decoded frame (ms)',
        connectMs.toFixed(0),
        quantile(connects, 0.95).toFixed(0),
        `${connects.length} connects at 640x360 30 fps; ${verdict(connectMs, TARGETS.connectMs, 'ms')}`,
      ),
    );
    console.log(
      row(
        'input to photon (ms)',
        photonMs.toFixed(0),
        quantile(photons, 0.95).toFixed(0),
        `${photons.length} pointer moves, seq read from presented frames; ${verdict(photonMs, TARGETS.photonMs, 'ms')}`,
      ),
    );
    const largeCores = large.app + large.ffmpeg;
    console.log(row('CPU, one viewer, 640x360 30 fps', cores(small).split(' ')[0] ?? '', '', cores(small)));
    console.log(
      row(
        'CPU, one viewer, 1280x720 30 fps',
        cores(large).split(' ')[0] ?? '',
        '',
        `${cores(large)}; ${verdict(largeCores, TARGETS.largeCores, 'core')}`,
      ),
    );
    console.log(
      `(CPU over ${CPU_SECONDS} s from /proc/<pid>/stat; 1.00 = one full core; load average ${load})`,
    );
  } finally {
    await app?.stop();
    await browser.close();
  }
}

await main();
